/**
 * The engine thread's entry (started by ./thread.ts): runs embedded engines on the app thread's
 * orders, each counting its writes in the shared memory it was given, and answers each order
 * with the engine's port, its start-up error, or the end of its close.
 */
import { parentPort } from "node:worker_threads";
import { type EmbeddedEngine, type EmbeddedEngineOptions, startEmbeddedEngine } from "./mod.ts";
import type { ErrorReport, ThreadOrder, ThreadReport } from "./thread.ts";

const engines = new Map<number, EmbeddedEngine>();

function reportOf(error: unknown): ErrorReport {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    message: error.message,
    stack: error.stack,
    ...(typeof code === "string" ? { code } : {}),
  };
}

async function obey(order: ThreadOrder): Promise<ThreadReport> {
  const { id } = order;
  try {
    if ("start" in order) {
      const options = order.start.options as EmbeddedEngineOptions;
      const engine = await startEmbeddedEngine({ ...options, sharedWrites: order.start.sharedWrites });
      engines.set(id, engine);
      return { id, ready: { uri: engine.uri, port: engine.port } };
    }
    const engine = engines.get(id);
    engines.delete(id);
    await engine?.close();
    return { id, closed: true };
  } catch (error) {
    return { id, failed: reportOf(error) };
  }
}

parentPort!.on("message", (order: ThreadOrder) => {
  void obey(order).then((report) => parentPort!.postMessage(report));
});
