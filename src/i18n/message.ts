import { en, type Catalog, type MessageKey } from "./catalog-en.ts";

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
