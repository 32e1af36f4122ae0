import { type Catalog, en, type MessageKey } from "./catalog-en.ts";

/** A parameter of a message: a value shown as is, or a fragment translated like the message. */
export type MessageParam = string | number | Message;

/** A framework message before translation: its catalog key and the values of its placeholders. */
export interface Message {
  readonly key: MessageKey;
  readonly params?: Readonly<Record<string, MessageParam>>;
}

/**
 * A message to translate later, when the client's language is known.
 * @example msg("record.notFound", { model: "User" })
 */
export function msg(key: MessageKey, params?: Record<string, MessageParam>): Message {
  return params === undefined ? { key } : { key, params };
}

const PLACEHOLDER = /\{([A-Za-z]+)\}/g;

/**
 * Fills a message's text from `catalog`. Only names the message has a value for are
 * replaced, so literal braces in a text (`{"name":"Karl"}`, `posts{title}`) stay as written,
 * and values are inserted once, never scanned again for placeholders.
 * @example formatMessage(en, msg("record.notFound", { model: "User" })) // "The item is not found on User."
 */
export function formatMessage(catalog: Catalog, message: Message): string {
  const text = catalog[message.key];
  const params = message.params;
  if (params === undefined) return text;
  return text.replace(PLACEHOLDER, (whole, name: string) => {
    if (!Object.hasOwn(params, name)) return whole;
    const value = params[name]!;
    return typeof value === "object" ? formatMessage(catalog, value) : String(value);
  });
}

/** The English text of a message, as the spec and the default catalog give it. */
export function english(message: Message): string {
  return formatMessage(en, message);
}

/**
 * What a server adapter needs to answer its own errors (413, 400, 503) in the client's
 * language. The app's `Languages` is one: pass `app.languages`.
 */
export interface Translator {
  /** The language to answer in, from the request's Accept-Language header (null when absent). */
  negotiate(acceptLanguage: string | null): string;
  /** The text of a message in a language {@link negotiate} returned. */
  text(language: string, message: Message): string;
}

/** A Translator that answers every client in English, labelled `language` (an adapter's default). */
export function englishOnly(language = "en"): Translator {
  return { negotiate: () => language, text: (_language, message) => english(message) };
}
