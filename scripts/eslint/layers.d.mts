import type { ESLint, Rule } from "eslint";
export declare const CORE_LAYERS: string[][];
export declare function partOf(relative: string): string | undefined;
export declare function violation(from: string, to: string): string | undefined;
export declare const noUpwardImport: Rule.RuleModule;
declare const plugin: ESLint.Plugin;
export default plugin;
