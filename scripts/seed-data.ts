/**
 * Fills the example app (users, their posts, comments on the posts) with made-up but valid
 * records, in bulk: ids are reserved in blocks and each batch is one insertMany.
 */
import { en, Faker } from "@faker-js/faker";
import type { App } from "../src/mod.ts";
import type { Model } from "../src/model/define.ts";
import { validateBody } from "../src/model/validate.ts";
import { reserveIds } from "../src/store/ids.ts";

/** How much to create. */
export interface SeedCounts {
  users: number;
  postsPerUser: number;
  commentsPerPost: number;
}

/** Options of a seeding run. */
export interface SeedOptions {
  /** Fixed default, so two runs make the same data. */
  seed?: number;
  /** Records per insertMany. */
  batchSize?: number;
  /** Called after every batch with the number of records just stored. */
  onProgress?: (stored: number) => void;
}

type Fields = Record<string, unknown>;

/** Stores `count` records of a model, made by `make(id, index)`, validated as the API would. */
async function fill(
  app: App,
  model: Model,
  count: number,
  make: (id: number, index: number) => Fields,
  options: SeedOptions,
): Promise<number> {
  if (count === 0) return 0;
  const first = await reserveIds(app.db, model.collection, count);
  const batchSize = options.batchSize ?? 1000;
  const now = new Date();
  for (let start = 0; start < count; start += batchSize) {
    const docs = [];
    for (let id = first + start; id < first + Math.min(count, start + batchSize); id++) {
      docs.push({ _id: id, ...validateBody(model, make(id, id - first)), created_at: now, updated_at: now, _rev: 1 });
    }
    await app.db.collection(model.collection).insertMany(docs as never[], { ordered: true });
    options.onProgress?.(docs.length);
  }
  return first;
}

function modelOf(app: App, name: string): Model {
  const model = app.models.get(name);
  if (!model) throw new TypeError(`The seeder needs the example app's ${name} model`);
  return model;
}

/**
 * Creates `counts.users` users, `postsPerUser` posts for each and `commentsPerPost` comments on
 * each post. Emails carry the user's id, so they stay unique however often the seeder runs.
 * @returns the first id of each model's new block
 */
export async function seedExampleApp(
  app: App,
  counts: SeedCounts,
  options: SeedOptions = {},
): Promise<Record<string, number>> {
  const faker = new Faker({ locale: [en] });
  faker.seed(options.seed ?? 1);
  const [User, Post, Comment] = ["User", "Post", "Comment"].map((name) => modelOf(app, name));
  const firstUser = await fill(app, User, counts.users, (id) => {
    const name = faker.person.firstName();
    const surname = faker.person.lastName();
    return {
      email: `${name}.${surname}.${id}@example.com`.toLowerCase().replace(/[^a-z0-9.@]/g, ""),
      name,
      surname,
      password: faker.internet.password(),
    };
  }, options);
  const posts = counts.users * counts.postsPerUser;
  const firstPost = await fill(app, Post, posts, (_id, index) => ({
    user_id: firstUser + Math.floor(index / counts.postsPerUser),
    title: faker.lorem.sentence({ min: 3, max: 7 }),
    body: faker.lorem.paragraph(),
  }), options);
  const comments = posts * counts.commentsPerPost;
  const firstComment = await fill(app, Comment, comments, (_id, index) => ({
    post_id: firstPost + Math.floor(index / counts.commentsPerPost),
    // Written by any of the new users (the example's rules let only them change it).
    user_id: faker.number.int({ min: firstUser, max: firstUser + counts.users - 1 }),
    content: faker.lorem.sentence(),
  }), options);
  return { User: firstUser, Post: firstPost, Comment: firstComment };
}
