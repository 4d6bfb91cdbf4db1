/** The tool version written into run headers. A unit test keeps it equal to package.json's version. */
export const TOOL_VERSION = "0.1.0";
