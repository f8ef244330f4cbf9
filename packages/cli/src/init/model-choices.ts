/** The Model resources `gdn init --model` can start a bundle with (docs/providers.md). */
export const modelChoices = ['scripted', 'openai', 'anthropic', 'google', 'ollama'] as const;
export type ModelChoice = (typeof modelChoices)[number];

/** The Model document of goondan.yaml for a choice, and what the README says to do before `gdn run`. */
export function modelDocument(choice: ModelChoice): { yaml: string; setup: string } {
  switch (choice) {
    case 'scripted':
      return {
        yaml: `# The scripted provider plays back these steps: it is NOT a language model, it lets the bundle run with no API
# key. Swap in a real Model (gdn init --help lists them; docs/providers.md) and the same agent talks to it.
apiVersion: goondan.ai/v1
kind: Model
metadata:
  name: main
spec:
  provider: scripted
  model: demo
  script:
    - text: Let me greet Ada properly.
      toolCalls:
        - name: greet__hello
          args: { name: Ada, loud: true }
    - text: "I greeted Ada for you: HELLO, ADA!"
`,
        setup:
          'The Model is `scripted`: it replays two prepared steps and needs no API key. Replace it with a real one\n(OpenAI, Anthropic, Google, Ollama) when you are ready: `gdn init --help` lists them, and the providers guide\n(https://github.com/goondan/goondan/blob/main/docs/providers.md) shows each Model resource.',
      };
    case 'openai':
      return real('openai', 'gpt-4o-mini', 'OPENAI_API_KEY');
    case 'anthropic':
      return real('anthropic', 'claude-sonnet-4-5', 'ANTHROPIC_API_KEY');
    case 'google':
      return real('google', 'gemini-2.5-flash', 'GOOGLE_GENERATIVE_AI_API_KEY');
    case 'ollama':
      return {
        yaml: `# A local Ollama server through its OpenAI-compatible API: \`ollama pull llama3.2\` first.
apiVersion: goondan.ai/v1
kind: Model
metadata:
  name: main
spec:
  provider: openai-compatible
  model: llama3.2
  baseURL: http://localhost:11434/v1
`,
        setup: 'Start Ollama (https://ollama.com) and pull the model: `ollama pull llama3.2`.',
      };
  }
}

function real(provider: string, model: string, variable: string) {
  return {
    yaml: `apiVersion: goondan.ai/v1
kind: Model
metadata:
  name: main
spec:
  provider: ${provider}
  model: ${model}
  apiKey:
    valueFrom: { env: ${variable} }
`,
    setup: `Set your API key before running: \`export ${variable}=...\` (it is read from the environment, never stored).`,
  };
}
