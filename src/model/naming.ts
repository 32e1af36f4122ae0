import pluralize from "pluralize";

/**
 * Splits a PascalCase name into lower-case words.
 * @example words("BlogPost") // ["blog", "post"]
 * @example words("HTTPLog")  // ["http", "log"]
 */
export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(" ")
    .filter(Boolean);
}

/**
 * English plural of one lower-case word, irregular and uncountable words included, through the
 * `pluralize` library: the plurals Axe API (which uses it too), Rails and Laravel give.
 * @example plural("category") // "categories"
 * @example plural("person")   // "people"
 * @example plural("shelf")    // "shelves"
 * @example plural("sheep")    // "sheep"
 */
export function plural(word: string): string {
  return pluralize.plural(word);
}

/**
 * The plural mongorest 0.1.0 derived (0.2.0 follows English's irregular words): regular endings only, so irregular words came out
 * wrong ("person" → "persons"). Kept to find records left under those names.
 * @example regularPlural("person") // "persons"
 */
function regularPlural(word: string): string {
  if (/[^aeiou]y$/.test(word)) return word.slice(0, -1) + "ies";
  if (/(s|x|z|ch|sh)$/.test(word)) return word + "es";
  return word + "s";
}

function pluralWords(name: string, toPlural: (word: string) => string = plural): string[] {
  const parts = words(name);
  parts[parts.length - 1] = toPlural(parts[parts.length - 1]);
  return parts;
}

/**
 * Route segment for a model: lower case, hyphenated, plural.
 * @example routeName("BlogPost") // "blog-posts"
 */
export function routeName(name: string): string {
  return pluralWords(name).join("-");
}

/**
 * Collection name for a model: lower case, underscored, plural.
 * @example collectionName("BlogPost") // "blog_posts"
 */
export function collectionName(name: string): string {
  return pluralWords(name).join("_");
}

/**
 * The route and collection names mongorest 0.1.0 derived for a model, when they differ from
 * today's (`Person`: `persons`, now `people`). Start-up looks for records left under the old
 * collection name, which the new one would hide.
 * @example formerNames("Person") // { route: "persons", collection: "persons" }
 * @example formerNames("User")   // undefined
 */
export function formerNames(name: string): { route: string; collection: string } | undefined {
  const former = pluralWords(name, regularPlural);
  const collection = former.join("_");
  return collection === collectionName(name) ? undefined : { route: former.join("-"), collection };
}

/**
 * Route segment for a relation's nested routes: its name in kebab-case, as written (no plural
 * is added: relation names of hasMany relations already are plural).
 * @example relationSegment("ownedPosts")  // "owned-posts"
 * @example relationSegment("owned_posts") // "owned-posts"
 */
export function relationSegment(name: string): string {
  return name.split(/[_-]+/).flatMap(words).join("-");
}
