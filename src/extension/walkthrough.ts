import * as vscode from "vscode";
import { WALKTHROUGH_CONTEXTS, type WalkthroughStep } from "./command-ids.js";

/** Ticks a walkthrough step: called only once the step really happened (see WALKTHROUGH_CONTEXTS). */
export async function completeStep(step: WalkthroughStep): Promise<void> {
  await vscode.commands.executeCommand("setContext", WALKTHROUGH_CONTEXTS[step], true);
}
