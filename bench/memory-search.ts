/**
 * Memory search over 100,000 entries (@goondan/assistant, docs/assistant.md#memory): half Korean, half English,
 * in the workspace and in 10 people's personal scopes. Reports the insert rate and the median query time of
 * memory__search (every word, then any word) and of the memory Extension's recall (any word), for Korean and
 * English queries. Usage: npm run bench:memory [-- --json] [-- --size N]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveMemory, searchMemory } from '../packages/assistant/src/memory/memory-store.ts';
import { peopleDatabaseAt } from '../packages/assistant/src/people/people-database.ts';

const json = process.argv.includes('--json');
const sizeAt = process.argv.indexOf('--size');
const size = sizeAt > 0 ? Number(process.argv[sizeAt + 1]) : 100_000;

const koWords = [
  '회의',
  '준비',
  '발표',
  '자료',
  '점심',
  '저녁',
  '병원',
  '예약',
  '생일',
  '선물',
  '여행',
  '비행기',
  '숙소',
  '운동',
  '요가',
  '장보기',
  '우유',
  '계란',
  '보고서',
  '마감',
  '학교',
  '숙제',
  '택배',
  '세탁',
  '청소',
  '은행',
  '월세',
  '보험',
  '약속',
  '친구',
];
const koTails = ['을', '를', '이', '가', '은', '는', '에', '에서', '하기', '했다', '할 것', '챙기기'];
const enWords = [
  'meeting',
  'prepare',
  'slides',
  'lunch',
  'dinner',
  'doctor',
  'appointment',
  'birthday',
  'present',
  'travel',
  'flight',
  'hotel',
  'workout',
  'yoga',
  'groceries',
  'milk',
  'eggs',
  'report',
  'deadline',
  'school',
  'homework',
  'parcel',
  'laundry',
  'cleaning',
  'bank',
  'rent',
  'insurance',
  'promise',
  'friend',
  'garden',
];

let seed = 42;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;

function sentence(korean: boolean, index: number): string {
  const words = Array.from({ length: 4 + Math.floor(random() * 6) }, () =>
    korean ? `${pick(koWords)}${pick(koTails)}` : pick(enWords),
  );
  return `${words.join(' ')} #${index}`;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number) => Math.round(value * 100) / 100;

const dir = mkdtempSync(join(tmpdir(), 'gdn-bench-memory-'));
try {
  const db = peopleDatabaseAt(join(dir, 'assistant.db'));
  const owners: number[] = [];
  for (let i = 0; i < 10; i++) {
    const row = db
      .query<{ id: number }, [string, string]>(
        'INSERT INTO people_profiles (name, created_at) VALUES (?, ?) RETURNING id',
      )
      .get(`person${i}`, new Date().toISOString())!;
    owners.push(row.id);
  }
  const insertStart = Bun.nanoseconds();
  db.transaction(() => {
    for (let i = 0; i < size; i++) {
      const owner =
        i % 3 === 0
          ? { scope: 'personal' as const, owner: pick(owners) }
          : { scope: 'workspace' as const, owner: null };
      saveMemory(db, owner, sentence(i % 2 === 0, i));
    }
  })();
  const insertMs = (Bun.nanoseconds() - insertStart) / 1e6;

  const queries = {
    korean: ['회의', '회의 준비', '병원 예약', '생일 선물', '비행기', '보고서 마감', '택배를', '요가'],
    english: ['meeting', 'doctor appointment', 'birthday present', 'fli', 'report deadline', 'groceries milk', 'yoga'],
  };
  const time = (run: () => unknown, rounds: number) => {
    for (let i = 0; i < 5; i++) run();
    const samples: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const start = Bun.nanoseconds();
      run();
      samples.push((Bun.nanoseconds() - start) / 1e6);
    }
    return round(median(samples));
  };
  const results: Record<string, number> = { entries: size, insertPerSecond: Math.round(size / (insertMs / 1000)) };
  for (const [language, list] of Object.entries(queries)) {
    let n = 0;
    results[`${language}SearchMedianMs`] = time(() => {
      const query = list[n++ % list.length]!;
      const options = { personalOwner: owners[0]!, limit: 10 };
      const all = searchMemory(db, query, { ...options, mode: 'all' });
      if (all.length === 0) searchMemory(db, query, { ...options, mode: 'any' });
    }, 80);
    results[`${language}RecallMedianMs`] = time(
      () =>
        searchMemory(db, `${list[n++ % list.length]} ${list[n % list.length]} please`, {
          personalOwner: owners[1]!,
          limit: 5,
          mode: 'any',
        }),
      80,
    );
  }
  if (json) console.log(JSON.stringify({ results }));
  else {
    console.log(`memory search, ${size} entries (half Korean, half English; a third personal)`);
    console.log(`  insert                         ${results.insertPerSecond} entries/s`);
    for (const language of ['korean', 'english'])
      console.log(
        `  ${language.padEnd(8)} memory__search median ${results[`${language}SearchMedianMs`]} ms, recall median ${results[`${language}RecallMedianMs`]} ms`,
      );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
