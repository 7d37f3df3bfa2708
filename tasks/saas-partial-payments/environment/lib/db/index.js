// One connection pool per server process. DATABASE_URL comes from db/env.sh (run.sh):
// the trial's own PostgreSQL, reached through its Unix socket.
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "./schema.js";

const globalForDb = globalThis;
const pool = globalForDb.launchpadPool ??= new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: 5,
});

export const db = drizzle(pool, { schema });
