import { mulberry32 } from "./random.ts";
import fc, { type IAsyncProperty, type IProperty, type Parameters } from "fast-check";

/** The seed when TEST_SEED is not set: every run of the suite makes the same choices. */
export const DEFAULT_TEST_SEED = 20_260_113;

function seedFromEnvironment(): number {
  const raw = process.env.TEST_SEED;
  if (raw === undefined || raw === "") return DEFAULT_TEST_SEED;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`TEST_SEED must be an integer, got "${raw}"`);
  return seed | 0;
}

/**
 * The seed of every random and property-based test: `TEST_SEED` from the environment, else
 * {@link DEFAULT_TEST_SEED}. Failures name it, so `TEST_SEED=<n> node --test …` replays them.
 */
export const TEST_SEED: number = seedFromEnvironment();

/** How a failure names the seed to replay it with. */
export const seedNote = (): string => `(replay with TEST_SEED=${TEST_SEED})`;

/** fast-check parameters with the suite's seed; fast-check's own failure report prints it too. */
export function seeded<T>(parameters: Parameters<T> = {}): Parameters<T> {
  return { seed: TEST_SEED, ...parameters };
}

/** `fc.assert` with the suite's seed; a failure's message ends with how to replay it. */
export async function checkProperty<T>(
  property: IProperty<T> | IAsyncProperty<T>,
  parameters: Parameters<T> = {},
): Promise<void> {
  await reportingSeed(() => fc.assert(property, seeded(parameters)));
}

/**
 * A deterministic pseudo-random generator (mulberry32) in [0, 1), standing in for Math.random.
 * `stream` separates independent sequences drawn from the same seed.
 */
export function seededRandom(stream = 0, seed = TEST_SEED): () => number {
  return mulberry32(seed ^ Math.imul(stream + 1, 0x9e3779b9));
}

/** Runs a test body and, when it fails, adds the seed to the error's message. */
export async function reportingSeed<T>(body: () => T | Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof Error) error.message += `\n${seedNote()}`;
    throw error;
  }
}
