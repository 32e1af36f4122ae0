/**
 * Entry point of the varied load generator's process, forked by `startVariedClient()` in
 * ./varied-load.ts: it only waits for orders from its parent.
 */
import { runVariedClient } from "./varied-load.ts";

runVariedClient();
