// Percentiles over timing samples: the sorted sample at ⌊(n−1)·p/100⌋.
export interface Summary {
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new Error('no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.floor(((sorted.length - 1) * p) / 100)]!;
  return { n: sorted.length, p50: at(50), p95: at(95), max: sorted[sorted.length - 1]! };
}

export function micros(ms: number): string {
  return `${(ms * 1000).toFixed(1)} µs`;
}
