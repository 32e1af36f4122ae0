import {
  configure,
  getConsoleSink,
  getJsonLinesFormatter,
  getLogger,
  getTextFormatter,
  type LogLevel,
  type Sink,
} from "@logtape/logtape";
import { type LineWriter, requestLog } from "./request-log.ts";

/**
 * The framework's loggers, in LogTape's library-first style: the framework always logs to
 * these categories, and nothing is printed until the application configures LogTape (as
 * `main.ts` does with {@link configureLogging}). Unconfigured, a log call costs a level check.
 * The per-request line is the exception: it is written by `requestLog` (request-log.ts), in
 * LogTape's line shapes but without a LogTape record per request, which cost more than the
 * request itself.
 */
export const requestLogger = getLogger(["mongorest", "request"]);

const LEVELS: Record<string, LogLevel> = {
  trace: "trace",
  debug: "debug",
  info: "info",
  warn: "warning",
  warning: "warning",
  error: "error",
  fatal: "fatal",
};

/** How {@link configureLogging} sets LogTape up. */
export interface LoggingOptions {
  /** One JSON object per line (for log collectors) instead of readable text. */
  json?: boolean;
  /** The lowest level written: trace, debug, info (default), warn, error, fatal. */
  level?: string;
  /**
   * A LogTape sink for every record (default: the console, errors to stderr). Without `write`,
   * it also gets each request's line as a record, as LogTape would have made it.
   */
  sink?: Sink;
  /**
   * Where request lines go, formatted, a batch of whole lines at a time (each ending in "\n"),
   * at most 20 ms after their request or when `app.close()` runs; default standard output.
   */
  write?: LineWriter;
}

/**
 * The options `main.ts` derives from the environment: JSON lines when `NODE_ENV` is
 * production, readable text otherwise; `LOG_LEVEL` sets the level.
 */
export function loggingFromEnv(env: Record<string, string | undefined>): LoggingOptions {
  return { json: env.NODE_ENV === "production", level: env.LOG_LEVEL || undefined };
}

/** The LogTape level for a `LOG_LEVEL` value; a typo stops start-up with one line. */
export function parseLevel(level: string | undefined): LogLevel {
  if (level === undefined) return "info";
  const parsed = LEVELS[level.toLowerCase()];
  if (parsed === undefined) {
    throw new TypeError(`LOG_LEVEL must be one of trace, debug, info, warn, error, fatal; got "${level}"`);
  }
  return parsed;
}

/** The formatter for one line: JSON lines, or `time [LEVEL] category: message` text. */
export function lineFormatter(json: boolean): (record: Parameters<Sink>[0]) => string {
  return json ? getJsonLinesFormatter() : getTextFormatter({ timestamp: "date-time-timezone" });
}

/**
 * Sets up LogTape for the framework's categories (replacing any earlier setup): one line per
 * request at info level, unexpected errors at error level. Call it once at start-up.
 */
export async function configureLogging(options: LoggingOptions = {}): Promise<void> {
  const level = parseLevel(options.level);
  const json = options.json ?? false;
  const sink = options.sink ?? getConsoleSink({ formatter: lineFormatter(json) });
  requestLog.configure({ level, json, write: options.write, sink: options.sink });
  await configure({
    reset: true,
    sinks: { mongorest: sink },
    loggers: [
      { category: ["mongorest"], lowestLevel: level, sinks: ["mongorest"] },
      // LogTape reports its own problems here; keep them visible but quiet.
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: ["mongorest"] },
    ],
  });
}
