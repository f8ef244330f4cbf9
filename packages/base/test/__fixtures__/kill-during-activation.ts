// Commits the open changeset `<name>` of the bundle at `<bundleDir>` and is killed (SIGKILL, as kill -9) at the
// worst moment of its activation: the active branch moved, the index and files not yet
// (changeset-activation-recovery.test.ts). Prints the commit's answer only if the kill did not happen.
import { baseBundleDir } from '../../src/base-bundle-dir.ts';
import { setChangesetHook } from '../../src/changesets/changeset-test-hook.ts';
import { commitChangeset } from '../../src/changesets/commit-changeset.ts';
import { locateBundleRepository } from '../../src/changesets/locate-bundle-repository.ts';

const [bundleDir, changeset] = process.argv.slice(2) as [string, string];
setChangesetHook((stage) => {
  if (stage === 'ref-moved') process.kill(process.pid, 'SIGKILL');
});
const repository = await locateBundleRepository(bundleDir);
const outcome = await commitChangeset({
  repository,
  changeset,
  message: `change ${changeset}`,
  allowedPaths: ['**'],
  libraries: [baseBundleDir],
});
console.log(JSON.stringify(outcome));
