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
 * English plural of one lower-case word, covering the regular rules.
 * @example plural("category") // "categories"
 * @example plural("box")      // "boxes"
 * @example plural("key")      // "keys"
 */
export function plural(word: string): string {
  if (/[^aeiou]y$/.test(word)) return word.slice(0, -1) + "ies";
  if (/(s|x|z|ch|sh)$/.test(word)) return word + "es";
  return word + "s";
}

function pluralWords(name: string): string[] {
  const parts = words(name);
  parts[parts.length - 1] = plural(parts[parts.length - 1]);
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
 * Route segment for a relation's nested routes: its name in kebab-case, as written (no plural
 * is added: relation names of hasMany relations already are plural).
 * @example relationSegment("ownedPosts")  // "owned-posts"
 * @example relationSegment("owned_posts") // "owned-posts"
 */
export function relationSegment(name: string): string {
  return name.split(/[_-]+/).flatMap(words).join("-");
}
