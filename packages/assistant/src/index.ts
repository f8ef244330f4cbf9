// The public API of @goondan/assistant: the assistant's Tools are declared in goondan.yaml beside this package;
// the CLI loads the package as a library beside every bundle, like @goondan/base.

export { assistantBundleDir } from './assistant-bundle-dir.ts';
