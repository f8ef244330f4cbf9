import type { LanguageModelV4 } from '@ai-sdk/provider';

/**
 * A language model whose provider package is imported on its first call, so a process loads only the provider its
 * Model uses, and only when it talks to it (the four provider packages cost about half a second together).
 * `provider` must be the string the real model reports (`openai.chat`, `anthropic.messages`, ...): the runtime
 * reads it before the first call (deferred tools are an Anthropic feature).
 */
export function lazyLanguageModel(options: {
  provider: string;
  modelId: string;
  load: () => Promise<LanguageModelV4>;
}): LanguageModelV4 {
  let loading: Promise<LanguageModelV4> | undefined;
  const model = () => {
    loading ??= options.load();
    return loading;
  };
  return {
    specificationVersion: 'v4',
    provider: options.provider,
    modelId: options.modelId,
    get supportedUrls() {
      return model().then((loaded) => loaded.supportedUrls);
    },
    doGenerate: (callOptions) => model().then((loaded) => loaded.doGenerate(callOptions)),
    doStream: (callOptions) => model().then((loaded) => loaded.doStream(callOptions)),
  };
}
