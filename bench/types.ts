/** One line of the benchmark table: a measured value beside what it is compared with. */
export interface BenchRow {
  group: string;
  metric: string;
  value: number | string;
  /** The minimum, target or baseline the value is compared with, when there is one. */
  reference?: number | string;
  unit?: string;
  note?: string;
}

export type BenchResult = BenchRow[];
