/**
 * The product's vocabulary: the terms the engine, both hosts, the run file, the report and the webview share.
 * Each is one zod schema in a leaf module that imports only zod; every other declaration is its `z.infer`.
 */
export * from "./agent.js";
export * from "./condition.js";
export * from "./design.js";
export * from "./export-format.js";
export * from "./isolation.js";
export * from "./retrieval.js";
export * from "./skill-evals.js";
export * from "./skill-ref.js";
export * from "./stop-rule.js";
export * from "./verdict.js";
