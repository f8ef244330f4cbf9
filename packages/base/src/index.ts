// The public API of @goondan/base: the built-in Tools (declared in goondan.yaml beside this package) and the
// safety helpers they are built on, for reuse by other tools.

export { checkConnectorEvent } from '../connectors/runtime/check-connector-event.ts';
export type {
  ConnectorApproval,
  ConnectorContext,
  ConnectorEvent,
  ConnectorLogger,
  ConnectorMain,
  ConnectorOAuth,
  ConnectorReply,
  ConnectorTokenRequest,
} from '../connectors/runtime/connector-types.ts';
export { type IngressRoute, matchIngressRule } from '../connectors/runtime/match-ingress-rule.ts';
export {
  type BundleConnections,
  type ConnectionSettings,
  type ConnectionsReload,
  connectionsOf,
  type RunningConnection,
  startBundleConnections,
} from '../connectors/runtime/start-bundle-connections.ts';
export {
  checkTelegramPollers,
  isTelegramConnector,
  type TelegramPoller,
} from '../connectors/runtime/telegram-pollers.ts';
export { signSlackRequest, verifySlackSignature } from '../connectors/slack/verify-slack-signature.ts';
export type { Channel, ChannelLogger, ChannelOrchestrator } from '../extensions/telegram/channel-types.ts';
export type { TelegramConfig } from '../extensions/telegram/parse-telegram-config.ts';
export {
  type BundleChannels,
  type DeclaredChannel,
  declaredChannels,
  startBundleChannels,
} from '../extensions/telegram/start-bundle-channels.ts';
export {
  type StartTelegramChannelOptions,
  startTelegramChannel,
  telegramInstanceKey,
} from '../extensions/telegram/start-telegram-channel.ts';
export { type ExposurePreset, registerToolExposure } from '../extensions/tool-exposure/register-tool-exposure.ts';
export { baseBundleDir } from './base-bundle-dir.ts';
export { changesetBundleDir, changesetLibraries } from './changesets/changeset-target.ts';
export { type AfterFailure, type CommitOutcome, commitChangeset } from './changesets/commit-changeset.ts';
export { type FinishedActivation, finishInterruptedActivation } from './changesets/finish-activation.ts';
export { type ChangesOverview, listChanges } from './changesets/list-changes.ts';
export { type BundleRepository, locateBundleRepository } from './changesets/locate-bundle-repository.ts';
export { discardChangeset, openChangeset } from './changesets/open-changeset.ts';
export { type RevertOutcome, revertChange } from './changesets/revert-change.ts';
export { bundleRevision, revisionNotice } from './changesets/revision-notice.ts';

export { blockedAddressReason, isBlockedAddress } from './is-blocked-address.ts';
export { type ResolvedPath, resolveInsideWorkdir } from './resolve-inside-workdir.ts';
export { isSecretVariable, scrubEnvironment } from './scrub-environment.ts';
export { type StoredBotForChannels, storedBotForChannels } from './telegram-settings/stored-bot-for-channels.ts';
export {
  readTelegramBotSettings,
  type TelegramBotSettings,
  telegramBotSettingsPath,
  writeTelegramBotSettings,
} from './telegram-settings/telegram-bot-settings.ts';
