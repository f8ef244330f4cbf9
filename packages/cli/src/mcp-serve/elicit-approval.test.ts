import { expect, test } from 'bun:test';
import type { ApprovalRecord } from '@goondan/core';
import { approvalNeededLine, canElicitForm, tellWaitingApproval } from './elicit-approval.ts';

const record = { id: 'apr_1', toolName: 'bash__exec', rule: 'default restricted: ask' };
const answerElsewhere = "answer with 'gdn approvals approve apr_1' or 'gdn approvals deny apr_1 --reason TEXT'";

test('the stderr line says what was done with the MCP client: asked, told in a progress notification, or neither', () => {
  expect(approvalNeededLine(record, 'elicitation')).toBe(
    `approval needed apr_1: bash__exec (default restricted: ask); asking the MCP client (elicitation/create); or ${answerElsewhere}`,
  );
  const told = approvalNeededLine(record, 'progress');
  expect(told).toBe(
    `approval needed apr_1: bash__exec (default restricted: ask); the MCP client cannot be asked (it declares no form elicitation), so it is told in a progress notification; ${answerElsewhere}`,
  );
  const neither = approvalNeededLine(record, 'none');
  expect(neither).toBe(
    `approval needed apr_1: bash__exec (default restricted: ask); the MCP client was not asked (it declares no form elicitation) nor told (the call has no progressToken); ${answerElsewhere}`,
  );
  // The old line said "asked the MCP client" whenever there was any asker, the progress notification too.
  for (const line of [told, neither]) expect(line).not.toContain('asking the MCP client');
});

test('form elicitation: {} (2025-06) or { form: {} } (2025-11); url only, or none, is not', () => {
  expect(canElicitForm({ elicitation: {} })).toBe(true);
  expect(canElicitForm({ elicitation: { form: {} } })).toBe(true);
  expect(canElicitForm({ elicitation: { form: {}, url: {} } })).toBe(true);
  expect(canElicitForm({ elicitation: { url: {} } })).toBe(false);
  expect(canElicitForm({})).toBe(false);
  expect(canElicitForm(undefined)).toBe(false);
});

test('the progress asker tells the client how to answer and gives no answer; a failed notification is logged', async () => {
  const sent: string[] = [];
  const logged: string[] = [];
  const logger = { error: (line: string) => logged.push(line) } as unknown as Console;
  const full = { ...record, category: 'restricted' } as unknown as ApprovalRecord;
  const told = tellWaitingApproval({ notify: async (message) => void sent.push(message), logger });
  expect(told.reach).toBe('progress');
  expect(await told.ask(full, new AbortController().signal)).toBeNull();
  expect(sent).toEqual([`waiting for approval apr_1: bash__exec (default restricted: ask); ${answerElsewhere}`]);
  expect(logged).toEqual([]);
  const broken = tellWaitingApproval({ notify: () => Promise.reject(new Error('stream closed')), logger });
  expect(await broken.ask(full, new AbortController().signal)).toBeNull();
  expect(logged).toEqual([
    "gdn mcp serve: could not tell the MCP client about apr_1 (stream closed); answer it with 'gdn approvals'",
  ]);
});
