import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

// Debian's server binaries live in /usr/lib/postgresql/<major>/bin, off PATH; other systems
// (Homebrew, Fedora) put initdb on PATH. PG_BIN overrides.
function findBin(): string | undefined {
  if (process.env.PG_BIN !== undefined) {
    return existsSync(join(process.env.PG_BIN, "initdb")) ? process.env.PG_BIN : undefined;
  }
  const root = "/usr/lib/postgresql";
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, "bin", "initdb")))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  const last = majors.at(-1);
  if (last !== undefined) return join(root, last, "bin");
  return (process.env.PATH ?? "")
    .split(delimiter)
    .find(
      (dir) => dir !== "" && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")),
    );
}

/** The server binaries' directory, or `undefined`. */
export const PG_BIN = findBin();

/** Why the PostgreSQL tests cannot run here, or `undefined` when they can. */
export const postgresMissing =
  PG_BIN === undefined
    ? "no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin, $PG_BIN or on PATH (on Debian: apt-get install -y postgresql)"
    : undefined;

const isRoot = process.getuid?.() === 0;

// initdb and the server refuse to run as root: run them as the `postgres` user then.
function asServerUser(command: string, args: string[]): [string, string[]] {
  return isRoot ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
}

function giveToServerUser(dir: string): void {
  if (!isRoot) return;
  const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
  chownSync(dir, uid, gid);
}

/** Runs initdb once into a fresh directory: the template every server of the run copies. */
export async function createTemplate(): Promise<string> {
  if (PG_BIN === undefined) throw new Error(postgresMissing);
  const dir = mkdtempSync(join(tmpdir(), "jp-pgtpl-"));
  giveToServerUser(dir);
  const [cmd, args] = asServerUser(join(PG_BIN, "initdb"), [
    ...["-D", join(dir, "data"), "-U", "postgres", "-A", "trust", "-E", "UTF8"],
    ...["--locale=C.UTF-8", "--no-sync", "--no-instructions"],
  ]);
  await run(cmd, args);
  return dir;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** A throwaway PostgreSQL server on 127.0.0.1, from a copy of the template. */
export interface TestServer {
  readonly url: string;
  readonly port: number;
  /** The data directory (WAL and tables) and the server log live under it. */
  readonly dir: string;
  /** A new pool on the server, closed by {@link TestServer.stop}. */
  pool(options?: pg.PoolConfig): pg.Pool;
  /** `pg_ctl -m fast restart`: every connection is dropped. */
  restart(): Promise<void>;
  /** Stops the server and removes its directory; closes the pools it made. */
  stop(): Promise<void>;
  /** `pg_dump` of the whole database, as SQL text. */
  dump(): Promise<string>;
  /** Every byte the server keeps: pg_dump, the server log (all statements), and the data directory, WAL included. */
  holds(secret: string): Promise<string[]>;
}

/**
 * Starts a server from `template` (see {@link createTemplate}), by default logging every
 * statement with its parameters (the secret scans read the log), and without fsync.
 */
export async function startServer(
  template: string,
  settings: {
    readonly logStatements?: boolean;
    readonly maxConnections?: number;
    /** Keep PostgreSQL's own durability settings (fsync and synchronous commit on). */
    readonly durable?: boolean;
  } = {},
): Promise<TestServer> {
  const bin = PG_BIN as string;
  const dir = mkdtempSync(join(tmpdir(), "jp-pg-"));
  giveToServerUser(dir);
  await run("cp", ["-a", join(template, "data"), join(dir, "data")]);
  const port = await freePort();
  const log = join(dir, "log");
  const options = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-k ${dir}`,
    // A throwaway server need not survive a crash of the machine (the benchmark keeps the
    // defaults, to measure what a deployment pays).
    ...(settings.durable === true
      ? []
      : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]),
    `-c log_statement=${settings.logStatements === false ? "none" : "all"}`,
    "-c log_min_messages=info",
    `-c max_connections=${settings.maxConnections ?? 200}`,
  ].join(" ");
  const ctl = async (...args: string[]) => {
    const [cmd, argv] = asServerUser(join(bin, "pg_ctl"), ["-D", join(dir, "data"), ...args]);
    await run(cmd, argv);
  };
  await ctl("-l", log, "-w", "-o", options, "start");
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const pools: pg.Pool[] = [];
  const dump = async () => {
    const [cmd, argv] = asServerUser(join(bin, "pg_dump"), [
      ...["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "postgres"],
    ]);
    const { stdout } = await run(cmd, argv, { maxBuffer: 256 * 1024 * 1024 });
    // pg_dump guards its output with a random token per run: left out, so dumps compare.
    return stdout.replace(/^\\(un)?restrict .*$/gm, "");
  };
  return {
    url,
    port,
    dir,
    pool(config = {}) {
      const pool = new pg.Pool({ connectionString: url, ...config });
      // A restart ends idle connections with an error event: a test pool must not crash on it.
      pool.on("error", () => {});
      pools.push(pool);
      return pool;
    },
    async restart() {
      await ctl("-l", log, "-w", "-m", "fast", "-o", options, "restart");
    },
    async stop() {
      // A pool with a client still checked out (a failed test's listener) would wait forever.
      const ended = Promise.all(pools.map((p) => p.end().catch(() => {})));
      await Promise.race([ended, new Promise((r) => setTimeout(r, 2_000))]);
      await ctl("-m", "immediate", "-w", "stop").catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
    dump,
    async holds(secret) {
      const found: string[] = [];
      if ((await dump()).includes(secret)) found.push("pg_dump");
      // Flush everything to the data files, so a secret written anywhere is on disk now.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query("CHECKPOINT");
      await client.end();
      const needle = Buffer.from(secret, "utf-8");
      for (const file of walk(dir)) {
        if (readFileSync(file).includes(needle)) found.push(file.slice(dir.length + 1));
      }
      return found;
    },
  };
}

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}
