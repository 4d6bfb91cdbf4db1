import { z } from "zod";

/** Every rendering of the report model (`report --format`); `skill-creator` writes a folder (its iteration layout). */
export const ReportFormatSchema = z.enum(["text", "json", "markdown", "junit", "html", "csv", "skill-creator", "sarif"]);
export type ReportFormat = z.infer<typeof ReportFormatSchema>;

/** The formats the editor's Export Report offers (a file to keep or share; no terminal text, no JUnit). */
export const ExportFormatSchema = ReportFormatSchema.extract(["html", "csv", "json", "markdown"]);
export type ExportFormat = z.infer<typeof ExportFormatSchema>;
