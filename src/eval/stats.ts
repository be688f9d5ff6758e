/**
 * The statistics of an eval report: the Wilson score interval of a pass rate, pass^k, and the
 * paired difference of two models' pass rates (Newcombe's method 10). Pure functions.
 */

/** The two-sided 95% normal quantile. */
export const Z95 = 1.959963984540054;

/** A confidence interval, both ends within [0, 1] for a rate or [-1, 1] for a difference. */
export interface Interval {
  low: number;
  high: number;
}

/**
 * The Wilson score interval of `passes` out of `n` (95% unless `z` says otherwise). With n = 0
 * nothing is known: the whole range [0, 1].
 */
export function wilson(passes: number, n: number, z = Z95): Interval {
  if (!Number.isInteger(passes) || !Number.isInteger(n) || passes < 0 || passes > n) {
    throw new RangeError(`wilson: need 0 <= passes <= n, integers (got ${passes} of ${n})`);
  }
  if (n === 0) return { low: 0, high: 1 };
  const p = passes / n;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const spread = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  const denominator = 1 + z2 / n;
  return {
    // At 0 and n passes the ends are exactly 0 and 1; rounding must not move them.
    low: passes === 0 ? 0 : (centre - spread) / denominator,
    high: passes === n ? 1 : (centre + spread) / denominator,
  };
}

/**
 * pass^k: the chance that k trials drawn without replacement from the n run all pass, estimated
 * as C(passes, k) / C(n, k) (the unbiased estimator of tau-bench). pass^1 is the pass rate;
 * pass^n is 1 only when every trial passed.
 */
export function passHatK({ passes, n }: { passes: number; n: number }, k: number): number {
  if (!(k >= 1 && k <= n) || passes < 0 || passes > n) {
    throw new RangeError(`pass^k: need 1 <= k <= n and 0 <= passes <= n (got k=${k}, n=${n})`);
  }
  if (passes < k) return 0;
  // C(c, k) / C(n, k) = prod_{i=0}^{k-1} (c - i) / (n - i), computed without large factorials.
  let value = 1;
  for (let i = 0; i < k; i++) value *= (passes - i) / (n - i);
  return value;
}

/** pass^k for every k from 1 to n, keyed by k. */
export function passHatKAll(passes: number, n: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (let k = 1; k <= n; k++) out[String(k)] = passHatK({ passes, n }, k);
  return out;
}

/** Paired outcomes of two models on the same trials. */
export interface PairedCounts {
  /** Both passed. */
  both: number;
  /** Only the first passed. */
  firstOnly: number;
  /** Only the second passed. */
  secondOnly: number;
  /** Neither passed. */
  neither: number;
}

/** The paired difference of pass rates (first minus second) and its 95% interval. */
export interface PairedDifference extends Interval {
  estimate: number;
  n: number;
}

/**
 * The difference of two pass rates measured on the same trials (fixture and repeat paired),
 * first minus second, with Newcombe's (1998) method 10 interval: the two Wilson intervals
 * combined by square-and-add, corrected for the correlation of paired outcomes.
 */
export function pairedDifference(counts: PairedCounts, z = Z95): PairedDifference {
  const { both, firstOnly, secondOnly, neither } = counts;
  const n = both + firstOnly + secondOnly + neither;
  if (n === 0) return { estimate: 0, low: -1, high: 1, n: 0 };
  const first = both + firstOnly;
  const second = both + secondOnly;
  const p1 = first / n;
  const p2 = second / n;
  const estimate = p1 - p2;
  const w1 = wilson(first, n, z);
  const w2 = wilson(second, n, z);
  // The correlation of the two marginal proportions, with Newcombe's continuity correction.
  let phi = 0;
  const margins = first * (n - first) * second * (n - second);
  if (margins > 0) {
    const a = both * neither - firstOnly * secondOnly;
    const corrected = a > n / 2 ? a - n / 2 : a < 0 ? a : 0;
    phi = corrected / Math.sqrt(margins);
  }
  const lowSpread = Math.sqrt(
    (p1 - w1.low) ** 2 + (w2.high - p2) ** 2 - 2 * phi * (p1 - w1.low) * (w2.high - p2),
  );
  const highSpread = Math.sqrt(
    (p2 - w2.low) ** 2 + (w1.high - p1) ** 2 - 2 * phi * (p2 - w2.low) * (w1.high - p1),
  );
  return {
    estimate,
    low: Math.max(-1, estimate - lowSpread),
    high: Math.min(1, estimate + highSpread),
    n,
  };
}

/** Whether two intervals share at least one point. */
export function overlaps(a: Interval, b: Interval): boolean {
  return a.low <= b.high && b.low <= a.high;
}
