/**
 * What the console sends of stored data a model, a tool or a person made huge (docs/console.md#huge-messages): a
 * conversation message (a 10 MB text, a base64 image, a tool result of megabytes) cut, a page of at most PAGE_CHARS
 * characters of messages, an approval's arguments and an audit row's fields cut, so neither an answer nor the page's
 * DOM grows with what was stored.
 */

/** Characters of one text part (or a message that is one string) shown. */
export const TEXT_CHARS = 20_000;
/**
 * Characters shown of a call's input, a result's output, or any other field of a part (an image, a file): of its
 * JSON text, or of a string.
 */
export const VALUE_CHARS = 2_000;
/** Characters of a tool name, an id or a type (toolName, toolCallId, mediaType) of a part. */
export const NAME_CHARS = 200;
/** Parts of one message shown. */
export const PARTS = 200;
/** Fields of one part shown. */
export const FIELDS = 20;
/** Characters of all the strings and values of one message shown together. */
export const MESSAGE_CHARS = 50_000;
/** Characters of JSON of the messages of one page, about; a page holds one message at least. */
export const PAGE_CHARS = 1_000_000;

/** Characters of JSON of an approval's arguments sent to the page (it shows 1,500 of them). */
export const APPROVAL_ARGS_CHARS = 4_000;

/**
 * An approval as the console sends it: arguments of megabytes (a command a model made huge) cut to the start of
 * their JSON text, `argsCutChars` saying how much is left out; the overview sends every pending one every 2 s.
 */
export function shownApproval<A extends { args: unknown; decidedBy: string | null }>(
  approval: A,
): A & { argsCutChars?: number } {
  const { value, cut } = cutValue(approval.args, APPROVAL_ARGS_CHARS);
  const by = approval.decidedBy;
  return {
    ...approval,
    args: value,
    decidedBy: by !== null && by.length > NAME_CHARS ? `${by.slice(0, NAME_CHARS)}…` : by,
    ...(cut > 0 ? { argsCutChars: cut } : {}),
  };
}

/** Characters of JSON of an audit row's arguments or output sent (the store keeps 8,000 of each by default). */
export const AUDIT_VALUE_CHARS = 20_000;

const shortText = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
const shortOrNull = (text: string | null, max: number) => (text === null ? null : shortText(text, max));

/**
 * An audit row as the console sends it: the tool name a model chose (any length: a call to a tool that does not
 * exist is recorded as named), the rule, the approver and the error code cut to a line, arguments and output past
 * AUDIT_VALUE_CHARS (a bundle that raised the store's cap) cut like an approval's.
 */
export function shownAuditEntry<
  E extends {
    toolName: string;
    rule: string | null;
    errorCode: string | null;
    args: unknown;
    output: unknown;
    approval: { by: string | null; reason: string | null } | null;
  },
>(entry: E): E {
  return {
    ...entry,
    toolName: shortText(entry.toolName, NAME_CHARS),
    rule: shortOrNull(entry.rule, NAME_CHARS),
    errorCode: shortOrNull(entry.errorCode, 64),
    args: cutValue(entry.args, AUDIT_VALUE_CHARS).value,
    output: cutValue(entry.output, AUDIT_VALUE_CHARS).value,
    approval: entry.approval
      ? {
          ...entry.approval,
          by: shortOrNull(entry.approval.by, NAME_CHARS),
          reason: shortOrNull(entry.approval.reason, 2000),
        }
      : null,
  };
}

/**
 * A schedule as a list sends it (the console's and GET /v1/schedules): its input and expression (up to 16,000 and
 * 4,000 characters as stored) cut to VALUE_CHARS, its label to NAME_CHARS, `cutChars` saying how many characters
 * are left out; GET /v1/schedules/ID has it whole. 10,000 schedules of 15 KB inputs were 153 MB in one answer.
 */
export function shownSchedule<S extends { input: string; expression: string; label: string }>(
  schedule: S,
): S & { cutChars?: number } {
  const input = cutString(schedule.input, VALUE_CHARS);
  const expression = cutString(schedule.expression, VALUE_CHARS);
  const label = cutString(schedule.label, NAME_CHARS);
  const cut = input.cut + expression.cut + label.cut;
  return {
    ...schedule,
    input: input.text,
    expression: expression.text,
    label: label.text,
    ...(cut > 0 ? { cutChars: cut } : {}),
  };
}

/** A value too long to show whole: the start of its JSON text (the audit log's truncated preview, docs/audit.md). */
export interface CutValue {
  truncated: true;
  originalChars: number;
  preview: string;
}

export interface BoundedContent {
  content: unknown;
  /** Characters of the stored content not shown (0: shown whole). */
  cutChars: number;
}

const jsonLength = (value: unknown): number => JSON.stringify(value ?? null).length;

function cutString(text: string, max: number): { text: string; cut: number } {
  return text.length > max ? { text: text.slice(0, max), cut: text.length - max } : { text, cut: 0 };
}

export function cutValue(value: unknown, max: number): { value: unknown; cut: number } {
  const json = JSON.stringify(value ?? null);
  if (json.length <= max) return { value, cut: 0 };
  const cut: CutValue = { truncated: true, originalChars: json.length, preview: json.slice(0, max) };
  return { value: cut, cut: json.length - max };
}

/** What is left to show of one message (MESSAGE_CHARS), spent field by field. */
class Budget {
  left = MESSAGE_CHARS;
  cut = 0;

  string(text: string, max: number): string {
    const shown = cutString(text, Math.min(max, this.left));
    this.left -= shown.text.length;
    this.cut += shown.cut;
    return shown.text;
  }

  value(value: unknown, max: number): unknown {
    const shown = cutValue(value, Math.min(max, this.left));
    this.left -= shown.cut > 0 ? Math.min(max, this.left) : jsonLength(value);
    this.cut += shown.cut;
    return shown.value;
  }
}

/** How much of a string field of a part is shown: a text, a name or id (toolName, toolCallId, type), or a value. */
function stringChars(name: string): number {
  if (name === 'text') return TEXT_CHARS;
  return name === 'type' || /(Name|Id|Type)$/.test(name) ? NAME_CHARS : VALUE_CHARS;
}

/** One part of a message with its long fields cut: text to TEXT_CHARS, values to VALUE_CHARS, names to NAME_CHARS. */
function boundPart(part: unknown, budget: Budget): unknown {
  if (part === null || typeof part !== 'object' || Array.isArray(part)) return budget.value(part, VALUE_CHARS);
  const out: Record<string, unknown> = {};
  const fields = Object.entries(part as Record<string, unknown>);
  for (const [index, [name, field]] of fields.entries()) {
    // A part has a few fields (type, text, toolName, input, …): a part of thousands, or a name of a page, is not shown.
    if (index >= FIELDS || name.length > NAME_CHARS) {
      budget.cut += name.length + jsonLength(field);
      continue;
    }
    out[name] = typeof field === 'string' ? budget.string(field, stringChars(name)) : budget.value(field, VALUE_CHARS);
  }
  return out;
}

/** A stored message's content as the console shows it: whole when it is short, else cut (and how much was cut). */
export function boundContent(content: unknown): BoundedContent {
  const budget = new Budget();
  if (typeof content === 'string') return { content: budget.string(content, TEXT_CHARS), cutChars: budget.cut };
  if (!Array.isArray(content)) return { content: budget.value(content, VALUE_CHARS), cutChars: budget.cut };
  const parts = content.slice(0, PARTS).map((part) => boundPart(part, budget));
  for (const part of content.slice(PARTS)) budget.cut += jsonLength(part);
  return { content: parts, cutChars: budget.cut };
}

/**
 * The newest of `messages` (oldest first) that fit in PAGE_CHARS together, at least one; `dropped` is how many of
 * the first were left out (the page's `earlier` cursor then points at the first one kept).
 */
export function fitPage<M>(messages: readonly M[]): { kept: M[]; dropped: number } {
  let total = 0;
  let start = messages.length;
  while (start > 0) {
    const size = jsonLength(messages[start - 1]);
    if (start < messages.length && total + size > PAGE_CHARS) break;
    total += size;
    start -= 1;
  }
  return { kept: messages.slice(start), dropped: start };
}
