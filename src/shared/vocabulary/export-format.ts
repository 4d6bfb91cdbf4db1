import { z } from "zod";

/**
 * Every rendering of the report model (`report --format`); `skill-creator` and `inspect` write a folder (skill-creator's
 * iteration layout; Inspect eval logs, one per evaluation and condition).
 */
export const ReportFormatSchema = z.enum(["text", "json", "markdown", "junit", "html", "csv", "skill-creator", "sarif", "inspect"]);
export type ReportFormat = z.infer<typeof ReportFormatSchema>;

/**
 * The formats the editor's Export Report offers: one file rendered from the report model (no terminal text, no JUnit).
 * skill-creator and inspect are not among them: they write a folder and need whole run records (outputs, transcripts).
 */
export const ExportFormatSchema = ReportFormatSchema.extract(["html", "csv", "json", "markdown"]);
export type ExportFormat = z.infer<typeof ExportFormatSchema>;
