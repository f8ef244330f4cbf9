import { runDeviceCommandOk } from './run-device-command.ts';

/**
 * The items selected in the frontmost Finder window (macOS only: no Linux file manager tells other programs its
 * selection, so finder__get_selection is not offered there). Untested here: no macOS in CI.
 */
export async function finderSelection(signal?: AbortSignal): Promise<{ paths: string[] }> {
  const script = [
    'set out to ""',
    'tell application "Finder" to set picked to selection as alias list',
    'repeat with one in picked',
    'set out to out & POSIX path of one & linefeed',
    'end repeat',
    'return out',
  ];
  const out = await runDeviceCommandOk(
    'osascript',
    script.flatMap((line) => ['-e', line]),
    signal ? { signal } : {},
  );
  return { paths: out.split('\n').filter((line) => line.trim() !== '') };
}
