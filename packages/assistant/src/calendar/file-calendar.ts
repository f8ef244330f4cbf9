import { Database } from 'bun:sqlite';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { GoondanError } from '@goondan/core/errors';
import type { PimBackend } from '../dav/dav-config.ts';
import type { CalendarBackendSession } from './calendar-backend.ts';
import type { CalendarRef } from './calendar-types.ts';
import { foldLines } from './fold-lines.ts';
import { loadIcal } from './ical-module.ts';
import { parseCalendarText } from './read-events.ts';

type FileBackend = Extract<PimBackend, { type: 'file' }>;

const LOCK_WAIT_MS = 30_000;

/**
 * Runs `work` holding the lock of `path` across processes: an exclusive SQLite transaction on the empty file
 * `.<name>.lock` beside it. The operating system drops the lock when its process ends, however it ends, so a
 * writer killed mid-change leaves no stale lock. Without it, two processes adding events at once each wrote back
 * the file as they had read it, and one's events were lost.
 */
async function withFileLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  await mkdir(dirname(path), { recursive: true });
  const lockPath = join(dirname(path), `.${basename(path)}.lock`);
  const lock = new Database(lockPath, { create: true });
  try {
    lock.run('PRAGMA busy_timeout = 0');
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        lock.run('BEGIN EXCLUSIVE');
        break;
      } catch (error) {
        if (!String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) throw error;
        if (Date.now() > deadline)
          throw new GoondanError('E_TOOL', `${basename(path)} has been locked by another process for over 30 s.`, {
            suggestion: `Try again; if no other agent is writing ${basename(path)}, check what holds ${lockPath}.`,
          });
        await Bun.sleep(20);
      }
    }
    try {
      return await work();
    } finally {
      lock.run('ROLLBACK');
    }
  } finally {
    lock.close();
  }
}

/**
 * Changes to one file run one after another: in this process in a queue, across processes under withFileLock
 * (read, change, write to a temp file, rename).
 */
const queues = new Map<string, Promise<unknown>>();
function serialised<T>(path: string, change: () => Promise<T>): Promise<T> {
  const work = () => withFileLock(path, change);
  const run = (queues.get(path) ?? Promise.resolve()).then(work, work);
  queues.set(
    path,
    run.catch(() => undefined),
  );
  return run;
}

/** A file's text, refusing one larger than `maxBytes` (E_DAV_RESPONSE_TOO_LARGE: the same bound as a server's answer). */
export async function readBoundedFile(path: string, maxBytes: number): Promise<string | null> {
  if (!existsSync(path)) return null;
  const size = (await stat(path)).size;
  if (size > maxBytes)
    throw new GoondanError(
      'E_DAV_RESPONSE_TOO_LARGE',
      `${basename(path)} has ${size} bytes; at most ${maxBytes} are read.`,
      {
        suggestion: "Split the file, or raise the Tool's config.maxResponseBytes.",
      },
    );
  return readFile(path, 'utf8');
}

export async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temporary, text, 'utf8');
  await rename(temporary, path);
}

/** The calendar of an ICS file: one calendar, named by X-WR-CALNAME or the file's name. */
export async function withFileCalendar<T>(
  backend: FileBackend,
  work: (session: CalendarBackendSession) => Promise<T>,
): Promise<T> {
  const ICAL = await loadIcal();
  const path = backend.path;
  const source = basename(path);
  const read = async () => {
    const text = await readBoundedFile(path, backend.maxResponseBytes);
    return text === null ? null : parseCalendarText(ICAL, text, source);
  };
  let name = basename(path, extname(path));
  const current = await read();
  const calendarName = current?.getFirstPropertyValue('x-wr-calname');
  if (typeof calendarName === 'string' && calendarName.trim() !== '') name = calendarName.trim();
  const ref: CalendarRef = { name, location: path, writable: true };
  const session: CalendarBackendSession = {
    calendars: async () => [ref],
    objects: async () => {
      const text = await readBoundedFile(path, backend.maxResponseBytes);
      return text === null ? [] : [{ text, source }];
    },
    create: (_calendar, _uid, text) =>
      serialised(path, async () => {
        const incoming = parseCalendarText(ICAL, text, 'the new event');
        const root = (await read()) ?? incoming;
        if (root !== incoming) {
          const zones = new Set(
            root.getAllSubcomponents('vtimezone').map((zone) => zone.getFirstPropertyValue('tzid')),
          );
          for (const zone of incoming.getAllSubcomponents('vtimezone'))
            if (!zones.has(zone.getFirstPropertyValue('tzid'))) root.addSubcomponent(zone);
          for (const vevent of incoming.getAllSubcomponents('vevent')) root.addSubcomponent(vevent);
        }
        await writeAtomically(path, `${foldLines(root.toString())}\r\n`);
      }),
    remove: (uid) =>
      serialised(path, async () => {
        const root = await read();
        if (!root) return null;
        const matching = root
          .getAllSubcomponents('vevent')
          .filter((vevent) => vevent.getFirstPropertyValue('uid') === uid);
        if (matching.length === 0) return null;
        const removed = new ICAL.Component(['vcalendar', [], []]);
        for (const vevent of matching) {
          root.removeSubcomponent(vevent);
          removed.addSubcomponent(vevent);
        }
        await writeAtomically(path, `${foldLines(root.toString())}\r\n`);
        return { calendar: ref, text: removed.toString() };
      }),
  };
  return work(session);
}
