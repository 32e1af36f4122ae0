/** `mongorest` (and `./src/mod.ts`) as the documentation's code blocks import it: the real API, with apps tracked. */
import {
  type App,
  type AppOptions,
  configureLogging as configure,
  createApp as create,
  type LoggingOptions,
} from "../../../src/mod.ts";
import { track } from "./registry.ts";

export * from "../../../src/mod.ts";

/** createApp, whose app the test closes after the block (closing it twice is harmless here). */
export async function createApp(options: AppOptions): Promise<App> {
  const app = await create(options);
  const close = app.close.bind(app);
  let closed: Promise<void> | undefined;
  app.close = () => (closed ??= close());
  track(() => app.close());
  return app;
}

/** configureLogging as given, but writing nowhere: request lines would land among the test runner's output. */
export async function configureLogging(options: LoggingOptions = {}): Promise<void> {
  await configure({ ...options, sink: () => {}, write: () => {} });
}
