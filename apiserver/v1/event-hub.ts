/**
 * The sessions of /api/v1/events/stream. A session is one open stream with a set of topics
 * (topics.ts); each topic's payload is read through the server's own /api/v1 routes with the
 * credentials the stream was opened with, so a stream shows exactly what its caller may read
 * and in the shapes the routes answer. Payloads are sent when they change: after the informers
 * report a change to DAGs, runs or queues (settled for a moment, since one start writes several
 * times), and every few seconds for what no informer sees (a running step's log). Memory is
 * bounded: at most MAX_SESSIONS streams of MAX_TOPICS topics, each remembered by a short hash
 * of its last payload; a client that does not read its stream is dropped, not buffered for.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import { frame, topicPayload, topicReads } from './topics.ts';

export const MAX_SESSIONS = 100;
export const MAX_TOPICS = 32;
/** Bytes a stream may have waiting for its client before the session is dropped. */
const MAX_PENDING_BYTES = 1 << 20;
const SETTLE_MS = 300;
const POLL_MS = 5000;
const HEARTBEAT_MS = 10_000;

/** A GET of one of the server's own paths with the session's credentials: the JSON answer, or undefined when it was not a 200. */
export type Read = (path: string, headers: Readonly<Record<string, string>>) => Promise<unknown>;

export interface TopicError {
  readonly topic: string;
  readonly code: string;
  readonly message: string;
}

interface Session {
  readonly id: string;
  /** Who opened it: only they may change its topics. */
  readonly owner: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly out: Writable;
  /** Topic -> hash of the last payload sent ('' before the first). */
  readonly topics: Map<string, string>;
  busy: boolean;
  again: boolean;
}

const hash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

export class EventHub {
  private readonly sessions = new Map<string, Session>();
  private nextId = 1;
  private settle: NodeJS.Timeout | undefined;
  private timers: NodeJS.Timeout[] = [];

  private readonly read: Read;

  constructor(read: Read) {
    this.read = read;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Adds and removes topics; the added ones are sent at once. Unknown topics and topics past the limit are refused one by one. */
  private change(
    session: Session,
    add: readonly string[],
    remove: readonly string[],
  ): { subscribed: string[]; errors: TopicError[] } {
    const errors: TopicError[] = [];
    for (const topic of remove) session.topics.delete(topic);
    for (const topic of add) {
      if (session.topics.has(topic)) continue;
      if (topicReads(topic) === undefined)
        errors.push({ topic, code: 'invalid_topic', message: `unsupported topic "${topic}"` });
      else if (session.topics.size >= MAX_TOPICS)
        errors.push({ topic, code: 'too_many_topics', message: `a stream takes at most ${String(MAX_TOPICS)} topics` });
      else session.topics.set(topic, '');
    }
    if (add.length > 0) void this.refresh(session);
    return { subscribed: [...session.topics.keys()].sort(), errors };
  }

  /** A new session on `out`, its control event written first; undefined when the server has as many as it takes. */
  open(
    out: Writable,
    owner: string,
    headers: Readonly<Record<string, string>>,
    topics: readonly string[],
  ): string | undefined {
    if (this.sessions.size >= MAX_SESSIONS) return undefined;
    const session: Session = { id: randomUUID(), owner, headers, out, topics: new Map(), busy: false, again: false };
    this.sessions.set(session.id, session);
    if (this.sessions.size === 1) this.startTimers();
    const { subscribed, errors } = this.change(session, topics, []);
    out.write(
      frame({ sessionID: session.id, subscribed, ...(errors.length === 0 ? {} : { errors }) }, { event: 'control' }),
    );
    return session.id;
  }

  mutate(
    id: string,
    owner: string,
    add: readonly string[],
    remove: readonly string[],
  ): { subscribed: string[]; errors: TopicError[] } | undefined {
    const session = this.sessions.get(id);
    if (session?.owner !== owner) return undefined;
    return this.change(session, add, remove);
  }

  close(id: string): void {
    this.sessions.delete(id);
    if (this.sessions.size === 0) this.stopTimers();
  }

  /** Something changed in the cluster: every session is read again once the writes have settled. */
  wake(): void {
    if (this.settle !== undefined || this.sessions.size === 0) return;
    this.settle = setTimeout(() => {
      this.settle = undefined;
      this.refreshAll();
    }, SETTLE_MS);
    this.settle.unref();
  }

  stop(): void {
    for (const session of this.sessions.values()) session.out.end();
    this.sessions.clear();
    this.stopTimers();
  }

  private refreshAll(): void {
    for (const session of this.sessions.values()) void this.refresh(session);
  }

  private startTimers(): void {
    const poll = setInterval(() => {
      this.refreshAll();
    }, POLL_MS);
    const heartbeat = setInterval(() => {
      for (const session of this.sessions.values()) this.write(session, ': heartbeat\n\n');
    }, HEARTBEAT_MS);
    this.timers = [poll, heartbeat];
    for (const timer of this.timers) timer.unref();
  }

  private stopTimers(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    if (this.settle !== undefined) clearTimeout(this.settle);
    this.settle = undefined;
  }

  /** Writes, or drops a session whose client has stopped reading. */
  private write(session: Session, text: string): void {
    if (!this.sessions.has(session.id)) return;
    if (session.out.writableLength > MAX_PENDING_BYTES) {
      this.close(session.id);
      session.out.end();
      return;
    }
    session.out.write(text);
  }

  /** Reads each topic of a session and sends those whose payload changed; one pass at a time per session. */
  private async refresh(session: Session): Promise<void> {
    if (session.busy) {
      session.again = true;
      return;
    }
    session.busy = true;
    try {
      do {
        session.again = false;
        for (const topic of [...session.topics.keys()]) await this.refreshTopic(session, topic);
      } while (this.asked(session));
    } finally {
      session.busy = false;
    }
  }

  /** A change came while the session was being read, and it is still open. */
  private asked(session: Session): boolean {
    return session.again && this.sessions.has(session.id);
  }

  private async refreshTopic(session: Session, topic: string): Promise<void> {
    const reads = topicReads(topic);
    if (reads === undefined) return;
    const answers: unknown[] = [];
    for (const path of reads.paths) {
      const answer = await this.read(path, session.headers);
      // Not (or no longer) readable: nothing is sent, and the last payload stands.
      if (answer === undefined) return;
      answers.push(answer);
    }
    const payload = JSON.stringify({ topic, payload: topicPayload(reads.type, answers) });
    const digest = hash(payload);
    if (!session.topics.has(topic) || session.topics.get(topic) === digest) return;
    session.topics.set(topic, digest);
    this.write(session, `id: ${String(this.nextId++)}\ndata: ${payload}\n\n`);
  }
}
