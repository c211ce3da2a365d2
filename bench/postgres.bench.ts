// @jp/store-postgres against a throwaway PostgreSQL server this suite starts itself (initdb and
// pg_ctl in a temporary directory, a free port of 127.0.0.1) with PostgreSQL's own durability
// settings: fsync and synchronous commit on, as a deployment runs. Without server binaries the
// suite reports itself skipped and says why.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createEvent, FileConversationStore, type StoredConversation } from "@jp/conversation";
import {
  answerPendingPrompt,
  type BuiltinTool,
  builtinExecutorSource,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";
import { migrate, PostgresConversationStore, PostgresInbox } from "@jp/store-postgres";
import pg from "pg";
import {
  createTemplate,
  postgresMissing,
  startServer,
  type TestServer,
} from "../packages/store-postgres/test/support/postgres.js";
import { atLeast, atMost, num, type Row, scaling } from "./report.js";
import { median, ms } from "./stats.js";

const SUITE = "@jp/store-postgres";
const PROCESSES = 8;
// Turns waiting at once in each process: a worker serving many conversations.
const TURNS = Number(process.env.BENCH_PG_TURNS ?? 32);
const WINDOW_MS = 5_000;

const asker: BuiltinTool = {
  execute: ({ answers }) =>
    answers.go === undefined
      ? {
          type: "needs_input",
          question: { id: "go", text: "Go?", answer_type: { type: "boolean" } },
        }
      : { type: "success", content: "done" },
};
const tools = { asker: { run: "unattended" as const } };
const executors = builtinExecutorSource({ asker });

let serial = 17_400_000_000;
const fresh = (store: { create(): StoredConversation }): StoredConversation => ({
  ...store.create(),
  name: `${serial++}-bench`,
});

const percentile = (xs: readonly number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
};

/** Suspends a new turn at its question and saves it; the prompt's id. */
async function suspendAndSave(
  store: PostgresConversationStore | FileConversationStore,
  conversation: StoredConversation,
): Promise<string> {
  conversation.stream.startTurn("Go?");
  const coordinator = new ToolCoordinator({ stream: conversation.stream, tools, executors });
  const result = await coordinator.run([{ id: "call_1", name: "asker", arguments: {} }], {
    turn: new TurnState(),
    suspend: true,
  });
  (await store.save(conversation))._unsafeUnwrap();
  return result.pending[0]?.prompt_id as string;
}

/**
 * From the call of `inbox.answer` to `waitForAnswer` resolving in a waiting host, with `hosts`
 * hosts waiting, each on its own listening connection (as hosts in separate processes are), or
 * all on one (`shared`: the hosts of one process sharing its inbox, as the README advises). Each
 * host is answered once before the timed answers, so its connections are open, as a running
 * host's are. `idle` more connections of the same database listen on a channel nobody notifies.
 */
async function wakeLatency(
  server: TestServer,
  hosts: number,
  samples: number,
  options: { readonly shared?: boolean; readonly idle?: number } = {},
) {
  const pool = server.pool({ max: 4 });
  const store = new PostgresConversationStore(pool);
  const answerer = new PostgresInbox(pool);
  const one = options.shared === true ? new PostgresInbox(server.pool({ max: 2 })) : undefined;
  const waiters = Array.from(
    { length: hosts },
    () => one ?? new PostgresInbox(server.pool({ max: 2 })),
  );
  const idle = await Promise.all(
    Array.from({ length: options.idle ?? 0 }, async () => {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      await client.query("LISTEN jp_bench_idle");
      return client;
    }),
  );
  await Promise.all(waiters.map((w) => w.listener().start()));
  const times: number[] = [];
  while (times.length < samples + hosts) {
    const waiting = await Promise.all(
      waiters.map(async (waiter) => {
        const conversation = fresh(store);
        const promptId = await suspendAndSave(store, conversation);
        const woke = waiter
          .waitForAnswer({ conversation: conversation.name })
          .then(() => performance.now());
        return { conversation, promptId, woke };
      }),
    );
    await new Promise((r) => setTimeout(r, 50)); // every host listening
    for (const { conversation, promptId, woke } of waiting) {
      if (times.length >= samples + hosts) break;
      const start = performance.now();
      (
        await answerer.answer({
          conversation: conversation.name,
          promptId,
          reply: { type: "answer", value: true },
        })
      )._unsafeUnwrap();
      times.push((await woke) - start);
    }
  }
  await Promise.all([...new Set([...waiters, answerer])].map((w) => w.close()));
  await Promise.all(idle.map((client) => client.end()));
  return times.slice(hosts);
}

/** The durable round trip in one process: suspend and save, answer, load, resume and save. */
async function durableRate(
  store: PostgresConversationStore | FileConversationStore,
  answer: (conversation: StoredConversation, promptId: string) => Promise<void>,
  rounds: number,
): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < rounds; i++) {
    const conversation = fresh(store);
    const promptId = await suspendAndSave(store, conversation);
    await answer(conversation, promptId);
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    await new ToolCoordinator({ stream: loaded.stream, tools, executors }).resume();
    (await store.save(loaded))._unsafeUnwrap();
  }
  return (rounds * 1000) / (performance.now() - start);
}

/** The median time of appending one event and saving, in a conversation of `events` events. */
async function appendMs(store: PostgresConversationStore, events: number): Promise<number> {
  const conversation = fresh(store);
  const { stream } = conversation;
  for (let i = 0; stream.length < events; i++) {
    stream.startTurn(`Turn ${i}`);
    stream.append(createEvent("chat_response", { message: `Reply ${i}, with some words in it.` }));
  }
  (await store.save(conversation))._unsafeUnwrap();
  const times: number[] = [];
  for (let i = 0; i < 41; i++) {
    stream.append(createEvent("chat_response", { message: `More ${i}` }));
    const start = performance.now();
    (await store.save(conversation))._unsafeUnwrap();
    if (i >= 10) times.push(performance.now() - start);
  }
  return median(times);
}

/**
 * CPU time (ms) of the server, from /proc: the postmaster, every process it runs now, and every
 * one that ended (the postmaster's children's time, once it has collected them).
 */
function serverCpuMs(server: TestServer): number | undefined {
  const pidFile = join(server.dir, "data", "postmaster.pid");
  if (!existsSync("/proc/self/stat") || !existsSync(pidFile)) return undefined;
  const postmaster = readFileSync(pidFile, "utf8").split("\n")[0]?.trim();
  // Fields after the command: state, ppid, …; utime, stime, cutime and cstime are the 12th to
  // the 15th.
  const fieldsOf = (pid: string) =>
    (readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1] ?? "").split(" ");
  let ticks = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    if (pid === postmaster) continue;
    try {
      const fields = fieldsOf(pid);
      if (fields[1] === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended meanwhile: its time is in the postmaster's children's time.
    }
  }
  // Read last, so a process that ended during the scan is counted here.
  const own = fieldsOf(postmaster as string).slice(11, 15);
  ticks += own.reduce((sum, field) => sum + Number(field), 0);
  return ticks * 10; // USER_HZ is 100 on Linux
}

/** Live question round trips across {@link PROCESSES} processes, each answered by another. */
async function roundTrips(server: TestServer) {
  const worker = join(import.meta.dirname, "postgres-worker.ts");
  const children = Array.from({ length: PROCESSES }, (_, i) =>
    spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        worker,
        server.url,
        String(i),
        String(PROCESSES),
        String(WINDOW_MS),
        String(TURNS),
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    ),
  );
  const outputs = children.map((child) => {
    let out = "";
    const saying = (word: string) =>
      new Promise<void>((resolve) => {
        const hear = () => {
          if (!out.includes(`${word}\n`)) return;
          child.stdout.off("data", hear);
          resolve();
        };
        child.stdout.on("data", hear);
      });
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const listening = saying("listening");
    const ready = saying("ready");
    const done = new Promise<string>((resolve) => child.once("exit", () => resolve(out)));
    return { listening, ready, done };
  });
  await Promise.all(outputs.map((o) => o.listening));
  for (const child of children) child.stdin.write("run\n");
  await Promise.all(outputs.map((o) => o.ready));
  const startAt = Date.now() + 300;
  for (const child of children) child.stdin.write(`go ${startAt}\n`);
  // The server's CPU over the same window as the workers'; they stop their turns after it.
  await new Promise((r) => setTimeout(r, startAt - Date.now()));
  const serverBefore = serverCpuMs(server);
  const load = loadavg()[0] as number;
  await new Promise((r) => setTimeout(r, WINDOW_MS));
  const serverAfter = serverCpuMs(server);
  for (const child of children) child.stdin.end("stop\n");
  const results = (await Promise.all(outputs.map((o) => o.done))).map(
    (out) =>
      JSON.parse(
        out
          .trim()
          .split("\n")
          .findLast((line) => line.startsWith("{")) as string,
      ) as {
        rounds: number;
        cpuMs: number;
        waitMs: number;
      },
  );
  const rounds = results.reduce((sum, r) => sum + r.rounds, 0);
  const workerCpu = results.reduce((sum, r) => sum + r.cpuMs, 0);
  const serverCpu =
    serverBefore === undefined || serverAfter === undefined
      ? undefined
      : serverAfter - serverBefore;
  const waitMs = median(results.map((r) => r.waitMs));
  return { rate: (rounds * 1000) / WINDOW_MS, rounds, workerCpu, serverCpu, load, waitMs };
}

/** The suite: wake-ups, round trips across processes, append cost; skipped without a server. */
export async function postgresBench(): Promise<Row[]> {
  if (postgresMissing !== undefined) {
    return [
      {
        id: "postgres.skipped",
        suite: SUITE,
        title: "PostgreSQL suite",
        measured: `skipped: ${postgresMissing}`,
        values: {},
      },
    ];
  }
  const template = await createTemplate();
  const server = await startServer(template, {
    logStatements: false,
    maxConnections: 300,
    durable: true,
  });
  const rows: Row[] = [];
  try {
    const pool: pg.Pool = server.pool({ max: 10 });
    (await migrate(pool))._unsafeUnwrap();
    const store = new PostgresConversationStore(pool);

    await wakeLatency(server, 1, 20); // warm-up
    // One host beside 99 connections listening on a channel nobody notifies: PostgreSQL 15
    // signals every listening connection of the database on every notification.
    const besideIdle = median(await wakeLatency(server, 1, 100, { idle: 99 }));
    for (const [hosts, shared] of [
      [1, false],
      [10, false],
      [100, false],
      [100, true],
    ] as const) {
      const times = await wakeLatency(server, hosts, 100, { shared });
      const [p50, p99] = [percentile(times, 0.5), percentile(times, 0.99)];
      const alone = rows.find((r) => r.id === "postgres.wake-1")?.values.medianMs;
      rows.push({
        id: `postgres.wake-${hosts}${shared ? "-shared" : ""}`,
        suite: SUITE,
        title: `answer to waiting host awake through NOTIFY, ${hosts} waiting host${hosts === 1 ? "" : "s"} (${shared ? "sharing one inbox, one listening connection" : hosts === 1 ? "its own listening connection" : "each its own listening connection"})`,
        measured: `median ${ms(p50)}, p99 ${ms(p99)} (${times.length} answers)`,
        values: { medianMs: p50, p99Ms: p99 },
        goal: atMost(p50, 10, "median ≤ 10 ms: a host resumes within milliseconds, no polling"),
        ...(hosts === 100 && !shared && alone !== undefined
          ? {
              notes: [
                `medians: one host alone ${ms(alone)}; one host beside 99 idle connections listening on another channel ${ms(besideIdle)} (PostgreSQL 15 signals every listening connection of the database on each notification)`,
              ],
            }
          : {}),
      });
    }

    const inbox = new PostgresInbox(pool);
    const root = mkdtempSync(join(tmpdir(), "jp-bench-files-"));
    let fileRate: number;
    let pgDurable: number;
    try {
      const files = new FileConversationStore(root);
      const answerFile = async (c: StoredConversation, id: string) => {
        const loaded = (await files.load(c.name))._unsafeUnwrap();
        answerPendingPrompt(loaded.stream, id, { type: "answer", value: true })._unsafeUnwrap();
        (await files.save(loaded))._unsafeUnwrap();
      };
      const answerPg = async (c: StoredConversation, id: string) => {
        const reply = { type: "answer", value: true } as const;
        (await inbox.answer({ conversation: c.name, promptId: id, reply }))._unsafeUnwrap();
      };
      await durableRate(files, answerFile, 20);
      await durableRate(store, answerPg, 20);
      fileRate = await durableRate(files, answerFile, 200);
      pgDurable = await durableRate(store, answerPg, 200);
    } finally {
      rmSync(root, { recursive: true, force: true });
      await inbox.close();
    }

    const live = await roundTrips(server);
    const cores = cpus().length;
    const cpuPer =
      live.serverCpu === undefined ? undefined : (live.workerCpu + live.serverCpu) / live.rounds;
    rows.push({
      id: "postgres.round-trips",
      suite: SUITE,
      title: `question round trips across ${PROCESSES} processes (${TURNS} live turns each; each question answered through the inbox by another process)`,
      measured: `${num(live.rate)}/s (${num(live.rounds)} in ${WINDOW_MS / 1000} s; a question waits ${ms(live.waitMs)} for its answer, median; load average ${live.load.toFixed(2)} at the start)`,
      values: {
        perSecond: live.rate,
        rounds: live.rounds,
        waitMs: live.waitMs,
        workerCpuMs: live.workerCpu,
        ...(live.serverCpu === undefined ? {} : { serverCpuMs: live.serverCpu }),
        ...(cpuPer === undefined ? {} : { cpuMsPerRoundTrip: cpuPer }),
      },
      goal: atLeast(live.rate, 2_000, `≥ 2,000/s on this ${cores}-core machine`),
      notes: [
        "a round trip: a question put in the inbox and announced, heard by another process, its prompt read and checked, answered, the waiting host woken and its reply taken back, the turn going on",
        ...(cpuPer === undefined || live.serverCpu === undefined
          ? []
          : [
              `CPU per round trip: ${ms(live.workerCpu / live.rounds)} in the ${PROCESSES} processes + ${ms(live.serverCpu / live.rounds)} in the server = ${ms(cpuPer)}, so ${num((cores * 1000) / cpuPer)}/s with the ${cores} cores to itself`,
            ]),
      ],
    });
    rows.push({
      id: "postgres.per-core",
      suite: SUITE,
      title:
        "round trips per core across processes, against the file store's round trip in one process",
      measured: `${num(live.rate / cores)}/s per core; FileConversationStore ${num(fileRate)}/s (suspend + save, answer, load + resume + save; each save flushed to the disk); the same durable round trip in PostgreSQL ${num(pgDurable)}/s in one process`,
      values: {
        perCore: live.rate / cores,
        fileStorePerSecond: fileRate,
        pgDurablePerSecond: pgDurable,
      },
      goal: atLeast(
        live.rate / cores / fileRate,
        1,
        "≥ 1× the file store's single-process figure per core",
      ),
    });

    const points = [];
    for (const events of [10, 1_000, 100_000]) {
      points.push({ n: events, perItem: await appendMs(store, events) });
    }
    const table = scaling("ms per appended event (one event, saved)", points);
    rows.push({
      id: "postgres.append",
      suite: SUITE,
      title: "append one event and save, by the conversation's length",
      measured: `${ms(points[0]?.perItem as number)} at 10 events, ${ms(points[2]?.perItem as number)} at 100,000 (ratio ${table.ratio.toFixed(2)})`,
      values: {
        smallMs: points[0]?.perItem as number,
        largeMs: points[2]?.perItem as number,
        ratio: table.ratio,
      },
      goal: atMost(
        table.ratio,
        1.5,
        "flat: ≤ 1.5× from 10 to 100,000 events (only the new rows are written)",
      ),
      scaling: table,
    });
  } finally {
    await server.stop();
    rmSync(template, { recursive: true, force: true });
  }
  return rows;
}
