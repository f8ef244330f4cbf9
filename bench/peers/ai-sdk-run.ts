// Peer of bench/cli-start.ts: the bare AI SDK script a `gdn run` is compared with. One streamText call to an
// openai-compatible server at BENCH_BASE_URL, the reply printed. With `--idle`: imports `ai` only, then prints
// its RSS after a full GC (the floor for an idle agent process).
export {};

if (process.argv.includes('--idle')) {
  await import('ai');
  Bun.gc(true);
  console.log(JSON.stringify({ rss: process.memoryUsage().rss }));
} else {
  const { streamText } = await import('ai');
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
  const provider = createOpenAICompatible({ name: 'bench', baseURL: process.env.BENCH_BASE_URL! });
  const result = streamText({ model: provider.chatModel('bench-model'), messages: [{ role: 'user', content: 'hi' }] });
  let text = '';
  for await (const delta of result.textStream) text += delta;
  console.log(text);
}
