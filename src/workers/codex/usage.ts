// Token usage from the App Server's cumulative counters. `tokenUsage.total` is
// cumulative per thread (a repair turn's total already contains the first
// turn), so turns are merged by keeping each thread's latest total — summing
// turn totals would count the first turn twice. Separate threads add up.
export interface TokenTotals {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
}

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);

export class UsageMeter {
  private readonly threads = new Map<string, TokenTotals>();

  /** Feeds `params` of a thread/tokenUsage/updated notification. */
  update(threadId: string, total: unknown): void {
    if (typeof total !== 'object' || total === null) return;
    const t = total as Record<string, unknown>;
    const prev = this.threads.get(threadId) ?? { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
    // Counters only grow; an out-of-order older update must not shrink them.
    this.threads.set(threadId, {
      inputTokens: Math.max(prev.inputTokens, count(t.inputTokens)),
      cachedInputTokens: Math.max(prev.cachedInputTokens, count(t.cachedInputTokens)),
      outputTokens: Math.max(prev.outputTokens, count(t.outputTokens)),
    });
  }

  total(): TokenTotals {
    const sum = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0 };
    for (const t of this.threads.values()) {
      sum.inputTokens += t.inputTokens;
      sum.cachedInputTokens += t.cachedInputTokens;
      sum.outputTokens += t.outputTokens;
    }
    return sum;
  }
}
