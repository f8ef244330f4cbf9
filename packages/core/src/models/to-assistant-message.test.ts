import { describe, expect, test } from 'bun:test';
import { type ContentPart, DefaultGeneratedFile, type ToolSet } from 'ai';
import { toAssistantMessage } from './to-assistant-message.ts';

describe('toAssistantMessage', () => {
  test('nothing to keep: no message', () => {
    expect(toAssistantMessage([])).toBeUndefined();
    expect(toAssistantMessage([{ type: 'text', text: '' }])).toBeUndefined();
    expect(
      toAssistantMessage([{ type: 'source', sourceType: 'url', id: 's1', url: 'https://example.invalid/' }]),
    ).toBeUndefined();
  });

  test('parts in order, with the provider metadata the provider needs back', () => {
    const signature = { google: { thoughtSignature: 'sig' } };
    const content: ContentPart<ToolSet>[] = [
      { type: 'reasoning', text: 'thinking', providerMetadata: { anthropic: { signature: 'abc' } } },
      { type: 'text', text: '', providerMetadata: signature },
      { type: 'text', text: 'Sure.' },
      { type: 'file', file: new DefaultGeneratedFile({ data: new Uint8Array([1, 2, 3]), mediaType: 'image/png' }) },
      {
        type: 'tool-call',
        toolCallId: 'c1',
        toolName: 'greet__hello',
        input: { name: 'Ada' },
        providerMetadata: signature,
      },
    ];
    expect(toAssistantMessage(content)).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'thinking', providerOptions: { anthropic: { signature: 'abc' } } },
        { type: 'text', text: '', providerOptions: signature },
        { type: 'text', text: 'Sure.' },
        { type: 'file', data: 'AQID', mediaType: 'image/png' },
        {
          type: 'tool-call',
          toolCallId: 'c1',
          toolName: 'greet__hello',
          input: { name: 'Ada' },
          providerOptions: signature,
        },
      ],
    });
  });

  test('a call whose input did not parse keeps {} as input; results of our own calls are not in it', () => {
    const message = toAssistantMessage([
      {
        type: 'tool-call',
        toolCallId: 'c1',
        toolName: 'greet__hello',
        input: '{"name": ',
        invalid: true,
        dynamic: true,
        error: new Error('bad json'),
      },
      {
        type: 'tool-error',
        toolCallId: 'c1',
        toolName: 'greet__hello',
        input: '{"name": ',
        error: 'bad',
        dynamic: true,
      },
    ]);
    expect(message).toEqual({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'greet__hello', input: {} }],
    });
  });

  test('results of calls the provider ran itself stay beside their call', () => {
    const message = toAssistantMessage([
      {
        type: 'tool-call',
        toolCallId: 's1',
        toolName: 'tool_search',
        input: { query: 'mail' },
        providerExecuted: true,
        dynamic: true,
      },
      {
        type: 'tool-result',
        toolCallId: 's1',
        toolName: 'tool_search',
        input: { query: 'mail' },
        output: [{ type: 'tool_reference', toolName: 'mail__send' }],
        providerExecuted: true,
        dynamic: true,
      },
      {
        type: 'tool-error',
        toolCallId: 's2',
        toolName: 'tool_search',
        input: {},
        error: { code: 'too_many_requests' },
        providerExecuted: true,
        dynamic: true,
      },
    ]);
    expect(message?.content).toEqual([
      {
        type: 'tool-call',
        toolCallId: 's1',
        toolName: 'tool_search',
        input: { query: 'mail' },
        providerExecuted: true,
      },
      {
        type: 'tool-result',
        toolCallId: 's1',
        toolName: 'tool_search',
        output: { type: 'json', value: [{ type: 'tool_reference', toolName: 'mail__send' }] },
      },
      {
        type: 'tool-result',
        toolCallId: 's2',
        toolName: 'tool_search',
        output: { type: 'error-json', value: { code: 'too_many_requests' } },
      },
    ]);
  });
});
