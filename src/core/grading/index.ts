import type { Isolation, PythonRuntime, SandboxInfo } from "../../shared/vocabulary/index.js";
import type { Logger } from "../logger.js";
import type { PythonFunctionTask, Task } from "../tasks/schema.js";
import { createMathGrader } from "./math.js";
import { createPythonGrader } from "./python-grader.js";
import { createSkillEvalGrader } from "./skill-eval.js";
import type { GradeOptions, Grader, Verdict } from "./types.js";

export type { Grader } from "./types.js";
export { JUDGE_VERSION, type JudgeConfig } from "./judge.js";

export interface CreateGraderOptions {
  logger?: Logger;
  /** Folder holding sandbox-worker.js and pyodide/ (defaults to the running bundle's folder or <repo>/dist). */
  distDir?: string;
  /** On-disk cache of expected outputs computed from canonical solutions. */
  cacheDir?: string;
  /** On-disk cache of verdicts (see PythonGraderOptions.verdictCacheDir). */
  verdictCacheDir?: string;
  poolSize?: number;
  /** The Python runtime of the sandbox (RunSettings.sandboxPython, whose default is auto; left out: pyodide). */
  python?: PythonRuntime;
}

export type { Isolation, SandboxInfo } from "../../shared/vocabulary/index.js";

/** The sandbox runtime a run used, read off its header: work that re-checks its answers (ablation) uses the same one. */
export function pythonRuntimeOf(sandbox: SandboxInfo): PythonRuntime {
  return sandbox.isolation === "native-confined" ? "cpython" : "pyodide";
}

/**
 * The grader the engine uses: python-function tasks go to the sandboxed Python grader (started lazily, so a math-only
 * evaluation never spawns a sandbox), math-answer tasks to the math grader, skill evals to their checks and judge.
 */
/** What the grader is doing, for the progress line. */
export interface GraderStatus {
  /** The Python sandbox: not needed (no python tasks), its interpreter snapshot being made, or ready (failed counts as ready: grading will say why). */
  sandbox: "not-needed" | "starting" | "ready";
  /** Python tasks of the run with expected outputs ready, and how many are being computed; null without python tasks. */
  expected: { done: number; total: number; computing: number } | null;
}

export interface EngineGrader extends Grader {
  /** The isolation in force for python tasks so far ("none" until a python task has been graded or prepared). */
  readonly isolation: Isolation;
  /**
   * Starts whatever the tasks need (the sandbox for python tasks) and returns the isolation they will run under,
   * so the run header records it before the first task runs.
   */
  prepare(tasks: readonly Task[]): SandboxInfo;
  status(): GraderStatus;
}

export function createGrader(options: CreateGraderOptions = {}): EngineGrader {
  const math = createMathGrader();
  const skillEval = createSkillEvalGrader();
  let python: ReturnType<typeof createPythonGrader> | undefined;
  const getPython = () =>
    (python ??= createPythonGrader({
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.distDir ? { distDir: options.distDir } : {}),
      ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}),
      ...(options.verdictCacheDir ? { verdictCacheDir: options.verdictCacheDir } : {}),
      ...(options.python ? { python: options.python } : {}),
      ...(options.poolSize ? { poolSize: options.poolSize } : {}),
    }));
  let pythonTasks: PythonFunctionTask[] = [];
  let sandboxReady = false;
  return {
    get isolation(): Isolation {
      return python ? python.isolation : "none";
    },
    prepare(tasks: readonly Task[]): SandboxInfo {
      pythonTasks = tasks.filter((t): t is PythonFunctionTask => t.kind === "python-function");
      if (pythonTasks.length === 0) return { isolation: "none" };
      const py = getPython();
      // Settles once the interpreter snapshot exists; a failure shows when an answer is graded.
      py.pool.snapshotReady().then(
        () => (sandboxReady = true),
        () => (sandboxReady = true),
      );
      if (py.isolation === "worker-fallback") return { isolation: py.isolation, detail: "worker thread: accident-proof, not attack-proof" };
      return { isolation: py.isolation, detail: py.detail };
    },
    status(): GraderStatus {
      if (pythonTasks.length === 0 || !python) return { sandbox: "not-needed", expected: null };
      return { sandbox: sandboxReady ? "ready" : "starting", expected: python.expectedStatus(pythonTasks) };
    },
    grade(task: Task, answer: string | null, gradeOptions?: GradeOptions): Promise<Verdict> {
      if (task.kind === "python-function") return getPython().grade(task, answer, gradeOptions);
      return task.kind === "skill-eval" ? skillEval.grade(task, answer, gradeOptions) : math.grade(task, answer, gradeOptions);
    },
    async dispose() {
      await Promise.all([math.dispose(), python?.dispose()]);
    },
  };
}
