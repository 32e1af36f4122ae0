import Negotiator from "negotiator";
import { de } from "./catalog-de.ts";
import { type Catalog, en, type MessageKey } from "./catalog-en.ts";
import { fr } from "./catalog-fr.ts";
import { formatMessage, type Message, type Translator } from "./message.ts";

/** The catalogs the framework ships, by language tag. English is the spec's wording. */
export const SHIPPED_CATALOGS: Readonly<Record<string, Catalog>> = Object.freeze({ en, de, fr });

/** What `createApp({ messages })` takes: per language, texts that replace or add to the shipped ones. */
export type MessageOverrides = Record<string, Partial<Record<MessageKey, string>>>;

/**
 * Stops start-up on a mistake in `messages`, with one line: every language's texts must be
 * strings, under keys the catalogs have (a misspelt key would otherwise be ignored silently).
 */
function checkOverrides(overrides: unknown): asserts overrides is MessageOverrides {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === "object" && !Array.isArray(value);
  if (!isObject(overrides)) {
    throw new TypeError(`messages must be an object of texts by language, got ${String(overrides)}`);
  }
  for (const [tag, texts] of Object.entries(overrides)) {
    if (!isObject(texts)) {
      throw new TypeError(`messages.${tag} must be an object of texts by key, got ${String(texts)}`);
    }
    for (const [key, text] of Object.entries(texts)) {
      if (!Object.hasOwn(en, key)) {
        const near = Object.keys(en).find((known) => known.toLowerCase() === key.toLowerCase());
        const hint = near
          ? `did you mean "${near}"?`
          : `the keys are those of the English catalog (i18n/catalog-en.ts)`;
        throw new TypeError(`messages.${tag} has an unknown key "${key}"; ${hint}`);
      }
      if (typeof text !== "string") {
        throw new TypeError(`messages.${tag}["${key}"] must be a string, got ${JSON.stringify(text)}`);
      }
    }
  }
}

// Browsers send the same few Accept-Language values over and over; parsing each once is enough.
const MEMO_SIZE = 256;

/**
 * The languages an app speaks: the shipped catalogs plus the app's own, with the app's texts
 * laid over them. A key a language lacks falls back to its base language (`de-CH` → `de`),
 * then to the default language, then to English.
 */
export class Languages implements Translator {
  /** The language used when the client asks for none the app speaks. */
  readonly defaultLanguage: string;
  /** Every language the app speaks, the default first. */
  readonly available: readonly string[];
  readonly #catalogs = new Map<string, Catalog>();
  readonly #memo = new Map<string, string>();
  /** True when the default language's texts are exactly the shipped English ones. */
  readonly #plainEnglish: boolean;

  constructor(defaultLanguage = "en", overrides: MessageOverrides = {}) {
    checkOverrides(overrides);
    const tags = new Set([defaultLanguage, ...Object.keys(SHIPPED_CATALOGS), ...Object.keys(overrides)]);
    for (const tag of tags) {
      const base = tag.split("-")[0]!;
      const layers = [
        en,
        SHIPPED_CATALOGS[defaultLanguage],
        overrides[defaultLanguage],
        SHIPPED_CATALOGS[base],
        overrides[base],
        SHIPPED_CATALOGS[tag],
        overrides[tag],
      ];
      this.#catalogs.set(tag, Object.freeze(Object.assign({}, ...layers.filter(Boolean))) as Catalog);
    }
    const defaultTexts = SHIPPED_CATALOGS[defaultLanguage] ?? overrides[defaultLanguage];
    if (defaultTexts === undefined) {
      throw new TypeError(
        `language "${defaultLanguage}" has no catalog; use one of ${
          Object.keys(SHIPPED_CATALOGS).join(", ")
        } or add its texts with messages: { "${defaultLanguage}": { ... } }`,
      );
    }
    this.defaultLanguage = defaultLanguage;
    this.available = [defaultLanguage, ...[...tags].filter((tag) => tag !== defaultLanguage)];
    this.#plainEnglish = defaultLanguage === "en" && overrides.en === undefined;
  }

  /**
   * The language to answer in, from an Accept-Language header: quality values are honoured,
   * `de-CH` is served by `de` when there is no `de-CH`, and with no match the default wins.
   * @example new Languages().negotiate("de-CH, fr;q=0.5") // "de"
   */
  negotiate(header: string | null): string {
    if (header === null || header === "") return this.defaultLanguage;
    let language = this.#memo.get(header);
    if (language === undefined) {
      const preferred = new Negotiator({ headers: { "accept-language": header } }).languages([...this.available]);
      language = preferred[0] ?? this.defaultLanguage;
      if (this.#memo.size >= MEMO_SIZE) this.#memo.clear();
      this.#memo.set(header, language);
    }
    return language;
  }

  /** True when a message in `language` reads exactly as its English text (no work needed). */
  isPlainEnglish(language: string): boolean {
    return this.#plainEnglish && language === "en";
  }

  /** The text of a message in `language` (one of {@link available}). */
  text(language: string, message: Message): string {
    return formatMessage(this.#catalogs.get(language) ?? this.#catalogs.get(this.defaultLanguage)!, message);
  }
}
