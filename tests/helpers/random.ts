/**
 * mulberry32: a small, fast, deterministic generator of numbers in [0, 1), standing in for
 * Math.random wherever a test or a benchmark must make the same choices on every run.
 * @example const random = mulberry32(42); random(); // always the same first value for 42
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
