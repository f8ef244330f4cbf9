/**
 * The one table of error codes. Every code has a name, a suggestion and a page at docs/errors/<CODE>.md
 * (a test checks the pages exist). Tools and the loader throw GoondanError with a code; the edge turns it into data.
 */
export const errorCodes = {
  // Tool execution (spec §9.2, §10)
  E_TOOL: { name: 'ToolExecutionError', suggestion: 'Check the input parameters and try again.' },
  E_TOOL_NOT_IN_CATALOG: {
    name: 'ToolNotInCatalogError',
    suggestion:
      "Add the tool to the Agent's spec.tools or register it from step middleware; only tools in the current catalog can be called.",
  },
  E_TOOL_NOT_FOUND: {
    name: 'ToolNotFoundError',
    suggestion: 'Check the tool name (format resource__export); `gdn tools list` shows the names that exist.',
  },
  E_TOOL_INVALID_ARGS: {
    name: 'ToolInvalidArgumentsError',
    suggestion:
      "Send arguments as a JSON object that matches the tool's parameters schema; each problem lists its path.",
  },
  E_TOOL_TIMEOUT: {
    name: 'ToolTimeoutError',
    suggestion: "Ask for less work per call, or raise the tool's spec.timeoutMs if the work is legitimately slow.",
  },
  E_TOOL_ABORTED: {
    name: 'ToolAbortedError',
    suggestion: 'The call was cancelled; run it again if it is still needed.',
  },
  E_TOOL_MIDDLEWARE: {
    name: 'ToolMiddlewareError',
    suggestion: 'A toolCall middleware failed; check the extension named in the message.',
  },
  E_TOOL_OPTIONS_INVALID: {
    name: 'ToolOptionsInvalidError',
    suggestion:
      'Fix the registration option named in the message: errorMessageLimit an integer of at least 20, timeoutMs and outputLimit positive integers, category safe, sensitive or restricted.',
  },
  E_TOOL_DUPLICATE: {
    name: 'ToolDuplicateError',
    suggestion: 'Give one of the tools another name; a registry never overwrites a tool silently.',
  },
  E_TOOL_UNAVAILABLE: {
    name: 'ToolUnavailableError',
    suggestion:
      'Install what the message names (or set the variable or config it names), then start again; `gdn tools list --all` shows every tool this machine cannot offer and why.',
  },
  E_TOOL_REQUIRES_INVALID: {
    name: 'ToolRequiresInvalidError',
    suggestion:
      'Fix spec.requires: platforms are process.platform values (linux, darwin, win32…), commands are names looked up on PATH, env entries variable names, config entries keys of spec.config; a|b means either.',
  },
  // Permissions and approvals (docs/permissions.md)
  E_POLICY_DENIED: {
    name: 'PolicyDeniedError',
    suggestion:
      "The agent's spec.permissions refuse this tool here; do the task another way, or change the rule named in the message if the call should be possible.",
  },
  E_APPROVAL_DENIED: {
    name: 'ApprovalDeniedError',
    suggestion:
      'Read the reason: a person refused the call (follow it; do not retry the call unchanged), or nobody could be asked (it says how to approve, e.g. gdn tools call --yes).',
  },
  E_APPROVAL_TIMEOUT: {
    name: 'ApprovalTimeoutError',
    suggestion:
      'Nobody answered the approval in time; ask the user before trying again, or raise spec.permissions.approvalTimeoutSeconds.',
  },
  E_APPROVAL_ANSWER_INVALID: {
    name: 'ApprovalAnswerInvalidError',
    suggestion:
      'Answer with { action: "approve" | "deny", scope?: "once" | "conversation", reason?: text, by?: text }.',
  },
  E_APPROVAL_NOT_FOUND: {
    name: 'ApprovalNotFoundError',
    suggestion: "Check the approval id with 'gdn approvals list'; only pending approvals can be answered.",
  },
  E_APPROVAL_AMBIGUOUS: {
    name: 'ApprovalAmbiguousError',
    suggestion:
      'The id is in more than one instance database (an instance directory copied?): name the instance with --agent and --instance (HTTP: ?agent=A&instance=K).',
  },
  E_CONFIRM_REQUIRED: {
    name: 'ConfirmRequiredError',
    suggestion:
      'The call would change more items than the tool allows at once; call it with preview: true to see them, then again with confirm: true.',
  },
  E_JOB_NOT_FOUND: {
    name: 'JobNotFoundError',
    suggestion: 'Use the handle returned by the pending result, in the same agent instance that started the job.',
  },
  // Bundle loading and validation (spec §4.3, §15)
  E_BUNDLE_NOT_FOUND: {
    name: 'BundleNotFoundError',
    suggestion:
      'Run the command in a directory with goondan.yaml (or below one), or pass --bundle DIR; to create a bundle here, run gdn init.',
  },
  E_YAML_PARSE: { name: 'YamlParseError', suggestion: 'Fix the YAML syntax at the position shown.' },
  E_YAML_LIMIT: {
    name: 'YamlLimitError',
    suggestion: 'Split the file, reduce nesting or aliases; limits protect the loader from hostile input.',
  },
  E_RESOURCE_INVALID: {
    name: 'ResourceInvalidError',
    suggestion: 'Match the resource shape described in docs/resources.md for this kind.',
  },
  E_FIELD_IGNORED: {
    name: 'FieldIgnoredError',
    suggestion: 'Remove the field, or fix its name if it is misspelt; docs/resources.md lists the fields of each kind.',
  },
  E_RESOURCE_API_VERSION: { name: 'ResourceApiVersionError', suggestion: 'Use apiVersion: goondan.ai/v1.' },
  E_RESOURCE_KIND_UNKNOWN: {
    name: 'ResourceKindUnknownError',
    suggestion: 'Use one of the kinds Model, Agent, Swarm, Tool, Extension.',
  },
  E_RESOURCE_DUPLICATE: { name: 'ResourceDuplicateError', suggestion: 'Rename or remove one of the two resources.' },
  E_REF_INVALID: {
    name: 'RefInvalidError',
    suggestion: 'Write a reference as "Kind/name" or as { kind, name } (optionally under ref:).',
  },
  E_REF_UNRESOLVED: {
    name: 'RefUnresolvedError',
    suggestion: 'Declare the referenced resource in the bundle or fix the name; the message lists those that exist.',
  },
  E_NAME_INVALID: {
    name: 'NameInvalidError',
    suggestion: 'Use lowercase letters, digits, "_" and "-" only, without "__" (spec §6.2).',
  },
  E_NAME_TOO_LONG: {
    name: 'NameTooLongError',
    suggestion: 'Shorten the resource or export name: resource__export must be at most 64 characters.',
  },
  E_TOOL_ENTRY_MISSING: {
    name: 'ToolEntryMissingError',
    suggestion: 'Add spec.entry: the path of the handler module.',
  },
  E_TOOL_ENTRY_NOT_FOUND: {
    name: 'ToolEntryNotFoundError',
    suggestion: 'Fix spec.entry; it is resolved relative to the directory of the YAML file that declares the tool.',
  },
  E_TOOL_ENTRY_LOAD: {
    name: 'ToolEntryLoadError',
    suggestion: 'The handler module failed to import; run it with `bun <entry>` to see the error.',
  },
  E_TOOL_HANDLERS_MISSING: {
    name: 'ToolHandlersMissingError',
    suggestion: 'Export an object named handlers: `export const handlers = { exportName: async (ctx, input) => ... }`.',
  },
  E_TOOL_HANDLER_MISSING: {
    name: 'ToolHandlerMissingError',
    suggestion: 'Add a function to handlers under the export name, or remove the export.',
  },
  E_TOOL_EXPORTS_EMPTY: { name: 'ToolExportsEmptyError', suggestion: 'Declare at least one entry in spec.exports.' },
  E_TOOL_EXPORT_DUPLICATE: {
    name: 'ToolExportDuplicateError',
    suggestion: 'Export names must be unique within one Tool resource; rename one.',
  },
  E_SCHEMA_INVALID: {
    name: 'SchemaInvalidError',
    suggestion: 'Make parameters a valid JSON Schema with type: object at the top.',
  },
  E_VALUE_SOURCE_ENV: {
    name: 'ValueSourceEnvError',
    suggestion: 'Set the environment variable named in the message, or give the value inline.',
  },
  // Models
  E_MODEL_API_KEY_MISSING: {
    name: 'ModelApiKeyMissingError',
    suggestion:
      'Set the environment variable named in the message (export NAME=...) before starting, or give the Model an apiKey: { valueFrom: { env: NAME } }.',
  },
  E_MODEL_CONFIG: {
    name: 'ModelConfigError',
    suggestion: 'Fix the Model resource (or the Agent modelConfig.params) field named in the message.',
  },
  // Agent runtime
  E_TURN_FAILED: {
    name: 'TurnFailedError',
    suggestion: 'A turn middleware failed; the message names the cause. Check the extension that registered it.',
  },
  E_MODEL_CALL_FAILED: {
    name: 'ModelCallFailedError',
    suggestion:
      'The model provider returned an error or could not be reached; check the Model resource, key and baseURL.',
  },
  E_INSTANCE_KEY_INVALID: {
    name: 'InstanceKeyInvalidError',
    suggestion:
      "Use 1-128 letters, digits, '_', '.' or '-', starting with a letter or digit, for --instance, the X-Goondan-Instance header or the instance in an API path.",
  },
  E_INSTANCE_BUSY: {
    name: 'InstanceBusyError',
    suggestion:
      'One process at a time may run an agent instance. Wait for the one named in the message to end (or stop it), or use another --instance.',
  },
  E_AGENT_NO_MODEL: {
    name: 'AgentNoModelError',
    suggestion: 'Give the Agent spec.modelConfig.modelRef pointing at a Model resource.',
  },
  // Orchestrator and inter-agent communication (spec §2.6, §11)
  E_AGENT_UNKNOWN: {
    name: 'AgentUnknownError',
    suggestion: 'Use an agent name from agents__catalog; the message lists the agents this one may call.',
  },
  E_AGENT_NOT_CALLABLE: {
    name: 'AgentNotCallableError',
    suggestion:
      "Add the agent to the Swarm's spec.agents, or to the caller's Tool/agents config.allow, to let this agent call it.",
  },
  E_AGENT_REQUEST_TIMEOUT: {
    name: 'AgentRequestTimeoutError',
    suggestion:
      'The callee did not finish its turn in time; ask for less, raise timeoutMs (at most 600000), or use async: true.',
  },
  E_AGENT_CRASHED: {
    name: 'AgentCrashedError',
    suggestion:
      'The callee process died; the orchestrator restarts it with backoff. Retry later; `gdn ps` shows its state and restarts.',
  },
  E_AGENT_TURN_FAILED: {
    name: 'AgentTurnFailedError',
    suggestion:
      "The callee's turn ended in an error; the message carries its code. Fix that cause, or try other input.",
  },
  E_AGENT_REQUEST_CYCLE: {
    name: 'AgentRequestCycleError',
    suggestion:
      'The callee is (directly or indirectly) waiting on this agent, so a blocking request would never be answered; use agents__send or async: true.',
  },
  E_AGENT_PROCESS_LIMIT: {
    name: 'AgentProcessLimitError',
    suggestion:
      'The swarm runs as many agent processes as it may; address an instance that already runs (agents__list) instead of a new instance key.',
  },
  E_OPTIONS_INVALID: {
    name: 'OptionsInvalidError',
    suggestion: 'Pass the option named in the message with the type the API reference gives (docs/api.md).',
  },
  E_EVENT_INVALID: {
    name: 'EventInvalidError',
    suggestion:
      'Give enqueue an event made by userEvent(text) (or of its shape: id, type, input text, source); input must be text.',
  },
  E_AGENT_SHUTTING_DOWN: {
    name: 'AgentShuttingDownError',
    suggestion: 'The swarm or the target agent is shutting down; start it again and retry.',
  },
  E_AGENT_RUNTIME_UNAVAILABLE: {
    name: 'AgentRuntimeUnavailableError',
    suggestion:
      'Inter-agent tools need the Orchestrator: declare a Swarm resource listing the agents (gdn run/chat then start it).',
  },
  // OpenTelemetry export (docs/telemetry.md)
  E_TELEMETRY_CONFIG: {
    name: 'TelemetryConfigError',
    suggestion:
      'Fix the OTEL_* variable named in the message: an http(s) endpoint URL, headers as key=value pairs separated by commas, OTEL_BSP_SCHEDULE_DELAY a whole number of milliseconds. Spans are not exported until it is fixed.',
  },
  // Swarms over NATS (docs/transport.md)
  E_NATS_CONFIG: {
    name: 'NatsConfigError',
    suggestion:
      'Fix the NATS settings (--nats URL, transport.nats in the Swarm: servers, namespace, credential files).',
  },
  E_NATS_UNREACHABLE: {
    name: 'NatsUnreachableError',
    suggestion:
      'Check that nats-server runs with JetStream (-js -sd DIR) at that URL and that the credentials are right.',
  },
  E_NATS_NO_WORKER: {
    name: 'NatsNoWorkerError',
    suggestion: 'Start a worker for the swarm on some machine: gdn worker --nats URL --namespace NAME.',
  },
  E_NATS_MESSAGE_INVALID: {
    name: 'NatsMessageInvalidError',
    suggestion:
      "Only gdn serve and gdn worker should publish on the swarm's subjects (gdn.<namespace>.>); restrict the others with NATS permissions.",
  },
  E_INSTANCE_LEASED: {
    name: 'InstanceLeasedError',
    suggestion:
      'Another worker runs this agent instance; its lease lapses within the lease TTL after that worker dies, then the instance restarts elsewhere.',
  },
  E_EXTENSION_ENTRY_NOT_FOUND: {
    name: 'ExtensionEntryNotFoundError',
    suggestion:
      'Fix spec.entry of the Extension; it is resolved relative to the directory of the YAML file that declares it.',
  },
  E_EXTENSION_LOAD: {
    name: 'ExtensionLoadError',
    suggestion:
      'Fix the extension named in the message: its entry must export register(api) and must not throw while registering.',
  },
  E_EXTENSION_STATE_INVALID: {
    name: 'ExtensionStateInvalidError',
    suggestion:
      'Pass api.state.set a JSON value: objects, arrays, strings, finite numbers, booleans, null; convert a BigInt, Date or Map first (String(n), date.toISOString(), Object.fromEntries(map)).',
  },
  E_EXTENSION_TOO_LATE: {
    name: 'ExtensionTooLateError',
    suggestion:
      'Call api.pipeline.register and api.onClose while register(api) runs (before it returns or resolves); only api.tools can change later.',
  },
  // Base tools
  E_PATH_OUTSIDE_WORKDIR: {
    name: 'PathOutsideWorkdirError',
    suggestion: 'Use a path inside the workdir; absolute paths, ".." and symlinks leading out are refused.',
  },
  E_FILE_NOT_FOUND: { name: 'FileNotFoundError', suggestion: 'Check the path; file-system__list shows what exists.' },
  E_FILE_TOO_LARGE: { name: 'FileTooLargeError', suggestion: 'Write less content per call.' },
  E_HTTP_ADDRESS_BLOCKED: {
    name: 'HttpAddressBlockedError',
    suggestion:
      'Private, loopback and link-local addresses are refused unless allowed: set config.allowPrivateNetwork: true on the Tool or in the Agent tool entry.',
  },
  E_HTTP_INVALID_URL: { name: 'HttpInvalidUrlError', suggestion: 'Use an absolute http:// or https:// URL.' },
  E_HTTP_REQUEST_FAILED: {
    name: 'HttpRequestFailedError',
    suggestion: 'Check the URL and that the server is reachable.',
  },
  E_HTTP_RESPONSE_TOO_LARGE: {
    name: 'HttpResponseTooLargeError',
    suggestion: 'Ask for a smaller resource or raise maxBytes within the allowed range.',
  },
  E_BASH_SPAWN: { name: 'BashSpawnError', suggestion: 'Check that the command or script exists and is executable.' },
  // MCP (the base Extension `mcp`)
  E_MCP_TOOL_ERROR: {
    name: 'McpToolError',
    suggestion:
      'The MCP server ran the tool and reported a failure (or refused the call); read the message, fix the arguments and try again.',
  },
  E_MCP_UNAVAILABLE: {
    name: 'McpUnavailableError',
    suggestion:
      "The MCP server could not be reached; check its command or url in the mcp Extension's config and its stderr. The next call reconnects.",
  },
  // Base extensions
  E_TOOL_EXPOSURE_UNKNOWN: {
    name: 'ToolExposureUnknownError',
    suggestion:
      'Use a tool or group name that tools__list shows (the message lists the closest names); nothing was enabled.',
  },
  E_TOOL_REPEATED: {
    name: 'ToolRepeatedError',
    suggestion:
      'The same call already ran twice in this turn: use its earlier results, change the arguments, or answer the user.',
  },
  // OAuth (docs/oauth.md)
  E_OAUTH_APP_INVALID: {
    name: 'OAuthAppInvalidError',
    suggestion: 'Fix the OAuthApp field named in the message (docs/resources.md#oauthapp).',
  },
  E_OAUTH_APP_UNKNOWN: {
    name: 'OAuthAppUnknownError',
    suggestion: 'Name an OAuthApp the bundle declares, as OAuthApp/name.',
  },
  E_OAUTH_NO_SUBJECT: {
    name: 'OAuthNoSubjectError',
    suggestion:
      'A per-user OAuthApp needs to know the user: pass caller.userId or deliver messages with metadata.userId.',
  },
  E_OAUTH_SCOPE_NOT_ALLOWED: {
    name: 'OAuthScopeNotAllowedError',
    suggestion: "Ask only for scopes listed in the OAuthApp's spec.scopes, or add the scope there.",
  },
  E_OAUTH_CALLBACK_INVALID: {
    name: 'OAuthCallbackInvalidError',
    suggestion: 'Start the authorization again (gdn auth login APP) and open the new link once; nothing was stored.',
  },
  E_OAUTH_SESSION_EXPIRED: {
    name: 'OAuthSessionExpiredError',
    suggestion: 'The authorization link expired; ask for a token again to get a new link; nothing was stored.',
  },
  E_OAUTH_EXCHANGE_FAILED: {
    name: 'OAuthExchangeFailedError',
    suggestion: 'The authorization server refused to issue tokens; start the authorization again; nothing was stored.',
  },
  E_OAUTH_GRANT_REVOKED: {
    name: 'OAuthGrantRevokedError',
    suggestion: 'The grant was revoked or expired at the server and was removed; authorize again with the link given.',
  },
  E_OAUTH_SERVER: {
    name: 'OAuthServerError',
    suggestion: "Check that the OAuthApp's issuer or endpoints are reachable and answer as an OAuth 2 server.",
  },
  E_OAUTH_KEY: {
    name: 'OAuthKeyError',
    suggestion:
      'Set GOONDAN_OAUTH_KEY to 32 bytes of base64, or give the key file mode 0600; a store sealed with another key must be removed (docs/oauth.md#the-key).',
  },
  E_OAUTH_UNAVAILABLE: {
    name: 'OAuthUnavailableError',
    suggestion: 'Tokens are served by the host process (gdn run, gdn chat, gdn auth); call getAccessToken there.',
  },
  // Instance storage (SQLite)
  E_STORE_CORRUPT: {
    name: 'StoreCorruptError',
    suggestion:
      'Move the file named in the message aside (with its -wal and -shm files) and start again; a new, empty database is created.',
  },
  E_STORE_FULL: {
    name: 'StoreFullError',
    suggestion:
      'Free space on the disk holding the file named in the message, then run again: what was committed before is kept, and the instance goes on from it.',
  },
  E_STORE_OPEN: {
    name: 'StoreOpenError',
    suggestion: 'Check that the directory exists or can be created, is writable, and is on a local filesystem.',
  },
  E_STORE_REMOVED: {
    name: 'StoreRemovedError',
    suggestion:
      'Start the command again: it opens the instance as it is now. To start a conversation afresh, use /reset in gdn chat rather than deleting its files under a running process.',
  },
  E_STORE_SCHEMA_TOO_NEW: {
    name: 'StoreSchemaTooNewError',
    suggestion: 'The database was written by a newer goondan; upgrade goondan, or move the file aside to start afresh.',
  },
  E_STORE_VALUE_INVALID: {
    name: 'StoreValueInvalidError',
    suggestion:
      'Store a value that does not contain itself and nests at most 1,000 levels of objects and arrays; flatten deep data, or keep it in a file and store its path.',
  },
  // Bundle changesets (v1 §12.4, docs/changesets.md)
  E_CHANGESET_REJECTED: {
    name: 'ChangesetRejectedError',
    suggestion:
      'Fix each problem listed (file:line) or undo the changes to paths outside the policy in the changeset workdir, then commit again; the changeset stays open.',
  },
  E_CHANGESET_CONFLICT: {
    name: 'ChangesetConflictError',
    suggestion:
      'The active bundle changed the same lines meanwhile, and the changeset still merges from the revision it was opened at, so committing it again conflicts again: discard it, open it again (it starts at the active revision, which has that change) and redo the edit there.',
  },
  E_CHANGESET_FAILED: {
    name: 'ChangesetFailedError',
    suggestion: 'A git or file operation failed; read the message, fix what it names, then try again.',
  },
  E_CHANGESET_TOO_LARGE: {
    name: 'ChangesetTooLargeError',
    suggestion:
      'Make the changeset smaller (fewer or smaller files; build output and dependencies belong in .gitignore), then commit again; nothing was committed and the changeset stays open.',
  },
  E_CHANGESET_NOT_FOUND: {
    name: 'ChangesetNotFoundError',
    suggestion:
      'Check the changeset name with swarm-bundle__status (or gdn changes list); open one with swarm-bundle__open_changeset.',
  },
  // gdn serve's HTTP API (docs/serve.md)
  E_SERVE_BAD_REQUEST: {
    name: 'ServeBadRequestError',
    suggestion:
      'Send the fields the endpoint documents (a JSON object with Content-Type: application/json, or the query parameters of a GET), of the types it documents; the message names the field.',
  },
  E_SERVE_BODY_TOO_LARGE: {
    name: 'ServeBodyTooLargeError',
    suggestion: 'Send a request body under the limit (1 MiB); put large inputs in a file the agent can read.',
  },
  E_SERVE_UNAUTHORIZED: {
    name: 'ServeUnauthorizedError',
    suggestion: 'Send the token gdn serve was started with as `Authorization: Bearer TOKEN`.',
  },
  E_SERVE_TOKEN_REQUIRED: {
    name: 'ServeTokenRequiredError',
    suggestion:
      'Set a token with --token or GOONDAN_SERVE_TOKEN before binding to a non-loopback address, or bind to 127.0.0.1.',
  },
  E_SERVE_ROUTE_NOT_FOUND: {
    name: 'ServeRouteNotFoundError',
    suggestion: 'Check the path and method against docs/serve.md; the message lists the methods the path takes.',
  },
  E_SERVE_LISTEN_FAILED: {
    name: 'ServeListenFailedError',
    suggestion:
      'Choose another --port (--port 0 picks a free one) or stop the process that listens there; --host must be an address of this machine.',
  },
  E_SERVE_BUNDLE_BUSY: {
    name: 'ServeBundleBusyError',
    suggestion:
      'One gdn serve at a time may serve a bundle. Use the one running (its URL is in its log), or stop it (kill PID) and start again.',
  },
  // The web console (docs/console.md)
  E_CONSOLE_TRACE_NOT_FOUND: {
    name: 'ConsoleTraceNotFoundError',
    suggestion:
      'Pick a trace from the trace list (it may have been pruned: each instance keeps its last 1000 traces), or check the id with gdn trace --json.',
  },
  E_CONSOLE_BUILD: {
    name: 'ConsoleBuildError',
    suggestion:
      "The console's browser script (packages/cli/src/console/client) did not compile: reinstall @goondan/cli, or report the message.",
  },
  E_CONSOLE_UNEXPECTED_RESPONSE: {
    name: 'ConsoleUnexpectedResponseError',
    suggestion:
      'Something between the page and gdn answered instead of it (a proxy, a stopped server): check that gdn serve or gdn trace --serve still runs at that address, then reload.',
  },
  E_INSTANCE_NOT_FOUND: {
    name: 'InstanceNotFoundError',
    suggestion:
      'Check the agent and instance key (GET /healthz or `gdn ps` lists running ones); an instance exists once it has handled an event.',
  },
  // Channels (docs/channels.md)
  E_CHANNEL_CONFIG_INVALID: {
    name: 'ChannelConfigInvalidError',
    suggestion:
      "Fix the field named in the message in the Agent's Extension/telegram config: token a ValueSource, allowedChatIds a list of integer chat ids, apiRoot an http(s) URL; one bot token per Agent.",
  },
  E_CHANNEL_AUTH: {
    name: 'ChannelAuthError',
    suggestion:
      'Check the bot token (BotFather /token shows it; /revoke makes a new one) and the variable it is read from.',
  },
  E_CHANNEL_CHAT_NOT_ALLOWED: {
    name: 'ChannelChatNotAllowedError',
    suggestion:
      "If this chat should reach the agent, add the chat id from the message to allowedChatIds of the Agent's Extension/telegram config and restart.",
  },
  E_CHANNEL_API: {
    name: 'ChannelApiError',
    suggestion:
      'The Bot API call named in the message failed; check network access to the API root and the description Telegram gave.',
  },
  // Packages and their npm dependencies (docs/packages.md)
  E_PACKAGE_INVALID: {
    name: 'PackageInvalidError',
    suggestion:
      'Put one kind: Package document first in goondan.yaml, with an npm name (@scope/name), spec.version (semver) and spec.dependencies as a list of { name, version }.',
  },
  E_PACKAGE_NOT_FOUND: {
    name: 'PackageNotFoundError',
    suggestion: 'Install the dependency with npm beside the bundle (npm install NAME@RANGE), then validate again.',
  },
  E_PACKAGE_VERSION: {
    name: 'PackageVersionError',
    suggestion:
      'Install a version the range accepts (npm install NAME@RANGE), or change the range in spec.dependencies.',
  },
  E_PACKAGE_CONFLICT: {
    name: 'PackageConflictError',
    suggestion:
      'Two packages declare the same Kind/name: declare your own resource of that name in goondan.yaml (it replaces both), or drop one dependency.',
  },
  E_PACKAGE_UNKNOWN: {
    name: 'PackageUnknownError',
    suggestion:
      "A reference's package must be the bundle's own Package or one of its spec.dependencies; add it there or fix the name.",
  },
  // Connectors and Connections (docs/connectors.md)
  E_CONNECTOR_ENTRY_NOT_FOUND: {
    name: 'ConnectorEntryNotFoundError',
    suggestion:
      'Fix spec.entry of the Connector: a path, relative to its goondan.yaml, of a module with a default export.',
  },
  E_CONNECTION_INVALID: {
    name: 'ConnectionInvalidError',
    suggestion:
      "Match only events the Connector declares (spec.events) and their properties, and route only to members of the Connection's Swarm.",
  },
  E_CONNECTOR_EVENT_INVALID: {
    name: 'ConnectorEventInvalidError',
    suggestion: 'Emit only events the Connector declares in spec.events, with each property of its declared type.',
  },
  E_CONNECTION_NO_ROUTE: {
    name: 'ConnectionNoRouteError',
    suggestion:
      'Add an ingress rule that matches the event (a rule without match catches everything), or stop emitting it.',
  },
  E_CONNECTOR_FAILED: {
    name: 'ConnectorFailedError',
    suggestion:
      "Read the connector's own log lines above; it is restarted with backoff. Fix its config or secrets and restart gdn serve.",
  },
  E_CONNECTOR_SIGNATURE: {
    name: 'ConnectorSignatureError',
    suggestion:
      'The request was not signed with the signing secret, or is older than 5 minutes: check the secret given to the Connection (SLACK_SIGNING_SECRET) and the clocks.',
  },
  E_MIGRATE_UNCONVERTED: {
    name: 'MigrateUnconvertedError',
    suggestion: 'gdn migrate could not rewrite this part; edit it by hand as the message says (docs/migrating.md).',
  },
  E_INIT_REFUSED: {
    name: 'InitRefusedError',
    suggestion:
      'gdn init wrote nothing: choose an empty folder, or move what the message names (a goondan.yaml already there, a folder inside DIR that is a symbolic link, DIR a link to nothing).',
  },
  // Scheduler (docs/scheduler.md)
  E_SCHEDULE_INVALID: {
    name: 'ScheduleInvalidError',
    suggestion:
      'Fix the field named in the message: exactly one of at, in, rrule or cron; an RRULE (RFC 5545) or a cron (5 fields, 6 with seconds first, 7 with a year last) with a future occurrence; a positive delay.',
  },
  E_SCHEDULE_IN_PAST: {
    name: 'ScheduleInPastError',
    suggestion:
      'Give a time in the future (check its zone offset), or a delay instead (--in; `inMs` over HTTP; `in` in tools).',
  },
  E_SCHEDULE_TIME_ZONE: {
    name: 'ScheduleTimeZoneError',
    suggestion: "Use an IANA time zone name such as 'Asia/Seoul', 'Europe/Berlin' or 'UTC'.",
  },
  E_SCHEDULE_NOT_FOUND: {
    name: 'ScheduleNotFoundError',
    suggestion: "Check the id with 'gdn schedules list'; a finished or cancelled schedule cannot be cancelled again.",
  },
  // Assistant memory and people (@goondan/assistant, docs/assistant.md)
  E_MEMORY_NOT_FOUND: {
    name: 'MemoryNotFoundError',
    suggestion: 'Find the memory with memory__search and pass its text (or a part only it has) as old_content.',
  },
  E_MEMORY_AMBIGUOUS: {
    name: 'MemoryAmbiguousError',
    suggestion: 'Several memories contain old_content; pass the full text of the one to change.',
  },
  E_USER_NOT_SET: {
    name: 'UserNotSetError',
    suggestion:
      "Call user__set_current with the speaker's name before using personal memory, or use scope 'workspace'.",
  },
  E_PROFILE_NOT_FOUND: {
    name: 'ProfileNotFoundError',
    suggestion: 'Use the name or an alias of an existing profile, or create it with profile__create.',
  },
  E_PROFILE_NAME_TAKEN: {
    name: 'ProfileNameTakenError',
    suggestion:
      'Names and aliases are unique across profiles; pick another, or merge the two profiles with profile__merge.',
  },
  E_PROFILE_MERGE_SELF: {
    name: 'ProfileMergeSelfError',
    suggestion: 'Name two different profiles: source goes away, target stays.',
  },
  // Assistant kanban boards (docs/assistant.md#kanban)
  E_KANBAN_BOARD_NOT_FOUND: {
    name: 'KanbanBoardNotFoundError',
    suggestion: 'Check the board id or name with kanban__list_boards; create a board with kanban__create_board.',
  },
  E_KANBAN_CARD_NOT_FOUND: {
    name: 'KanbanCardNotFoundError',
    suggestion: 'Check the card id with kanban__list on the same board; a deleted card is gone.',
  },
  E_KANBAN_COLUMN_NOT_FOUND: {
    name: 'KanbanColumnNotFoundError',
    suggestion: "Use one of the board's columns listed in the message (kanban__list_boards shows them).",
  },
  E_KANBAN_POSITION_INVALID: {
    name: 'KanbanPositionInvalidError',
    suggestion: 'Give a position from 1 (top) to the one named in the message, or leave it out to put the card last.',
  },
  E_KANBAN_NAME_TAKEN: {
    name: 'KanbanNameTakenError',
    suggestion:
      'Names are compared without case: pick another board name (or use the existing board), and give each column a different name.',
  },
  // Calendar and contacts over CalDAV/CardDAV or local files (@goondan/assistant, docs/assistant.md#calendar-and-contacts)
  E_CALENDAR_NOT_CONFIGURED: {
    name: 'CalendarNotConfiguredError',
    suggestion:
      'Give the calendar Tool a backend in its config: backend: caldav with server: { url, username, password }, or backend: file with file: <path to .ics>.',
  },
  E_CONTACTS_NOT_CONFIGURED: {
    name: 'ContactsNotConfiguredError',
    suggestion:
      'Give the contacts Tool a backend in its config: backend: carddav with server: { url, username, password }, or backend: file with file: <path to .vcf>.',
  },
  E_DAV_UNREACHABLE: {
    name: 'DavUnreachableError',
    suggestion:
      'Check config.server.url (scheme, host, port) and that the CalDAV/CardDAV server is running and reachable.',
  },
  E_DAV_UNAUTHORIZED: {
    name: 'DavUnauthorizedError',
    suggestion:
      'Check the username and password (or token) in the environment variables the config names; many providers need an app-specific password.',
  },
  E_DAV_REQUEST_FAILED: {
    name: 'DavRequestFailedError',
    suggestion:
      'Check config.server.url is the DAV address of the account and that the account may do this (write, delete).',
  },
  E_DAV_RESPONSE_TOO_LARGE: {
    name: 'DavResponseTooLargeError',
    suggestion: "Ask for less (fewer days, one calendar) or raise the Tool's config.maxResponseBytes.",
  },
  E_CALENDAR_NOT_FOUND: {
    name: 'CalendarNotFoundError',
    suggestion: 'Use one of the calendar names the message lists, or leave calendar_name out.',
  },
  E_CALENDAR_EVENT_NOT_FOUND: {
    name: 'CalendarEventNotFoundError',
    suggestion: 'Use an event id from calendar__list_events; the event may already be deleted.',
  },
  E_CALENDAR_DATA_INVALID: {
    name: 'CalendarDataInvalidError',
    suggestion:
      'The iCalendar or vCard text is broken; fix or replace the file (BEGIN:VCALENDAR … END:VCALENDAR, BEGIN:VCARD … END:VCARD).',
  },
  E_CONTACT_NOT_FOUND: {
    name: 'ContactNotFoundError',
    suggestion: 'Search with contacts__search and pass a name it lists.',
  },
  // Workspaces shared by the people one host serves (@goondan/assistant, docs/assistant.md#workspaces)
  E_WORKSPACE_NOT_FOUND: {
    name: 'WorkspaceNotFoundError',
    suggestion: 'Use an id or name from workspace__list (only workspaces you belong to are listed).',
  },
  E_WORKSPACE_NAME_TAKEN: {
    name: 'WorkspaceNameTakenError',
    suggestion: 'You already belong to a workspace with that name: switch to it, or pick another name.',
  },
  E_WORKSPACE_INVITE_INVALID: {
    name: 'WorkspaceInviteInvalidError',
    suggestion: 'Ask a member of the workspace for its current invite code (a regenerated code replaces the old one).',
  },
  E_WORKSPACE_INVITE_EXPIRED: {
    name: 'WorkspaceInviteExpiredError',
    suggestion: 'Ask a member to make a new code with workspace__regenerate_invite_code.',
  },
  E_WORKSPACE_INVITE_USED: {
    name: 'WorkspaceInviteUsedError',
    suggestion:
      'The code was for one person and has been used; ask a member for a new code (workspace__regenerate_invite_code).',
  },
  // Dates as people write them (@goondan/assistant, docs/assistant.md#dates)
  E_WHEN_UNREADABLE: {
    name: 'WhenUnreadableError',
    suggestion:
      "Write the time as ISO 8601 with an offset (2026-05-01T09:00:00+09:00) or as a phrase such as 'tomorrow at 3pm', 'in 20 minutes', '내일 오후 3시', '3시간 후' or 'every weekday at 9'.",
  },
  E_WHEN_INVALID: {
    name: 'WhenInvalidError',
    suggestion: 'The date or time does not exist (a 30th of February, hour 25); correct the part named in the message.',
  },
  E_WHEN_AMBIGUOUS: {
    name: 'WhenAmbiguousError',
    suggestion:
      'The text can mean more than one time; write it without doubt, e.g. as ISO 8601 (2026-04-03) or with the month name.',
  },
  // Outside services of the assistant's tools: web search, images, GitHub, Telegram (docs/assistant-pack-2.md)
  E_SERVICE_NOT_CONFIGURED: {
    name: 'ServiceNotConfiguredError',
    suggestion:
      "Set what the message names: the key's environment variable, or the Tool's config (provider, baseUrl, apiKey: { valueFrom: { env: NAME } }).",
  },
  E_SERVICE_UNREACHABLE: {
    name: 'ServiceUnreachableError',
    suggestion: 'Check that this host reaches the address in the message (network, DNS, proxy, the config baseUrl).',
  },
  E_SERVICE_AUTH: {
    name: 'ServiceAuthError',
    suggestion: 'The service refused the credential (401/403): check the key or token named in the message.',
  },
  E_SERVICE_RATE_LIMITED: {
    name: 'ServiceRateLimitedError',
    suggestion: 'The service limits how often it may be called; wait as long as the message says, then try again.',
  },
  E_SERVICE_NOT_FOUND: {
    name: 'ServiceNotFoundError',
    suggestion: 'The service has nothing at that name or number; check the repository, issue number or id.',
  },
  E_SERVICE_FAILED: {
    name: 'ServiceFailedError',
    suggestion: "Read the service's own words in the message; a 5xx is the service's trouble, try again later.",
  },
  E_SERVICE_RESPONSE_INVALID: {
    name: 'ServiceResponseInvalidError',
    suggestion:
      'The service answered something other than what its API promises; check that the config baseUrl points at the API itself.',
  },
  E_SERVICE_RESPONSE_TOO_LARGE: {
    name: 'ServiceResponseTooLargeError',
    suggestion: 'The answer was larger than the tool reads; check the config baseUrl points at the API, not a file.',
  },
  // Git tools of the assistant (docs/assistant-pack-2.md#git)
  E_GIT_NOT_REPOSITORY: {
    name: 'GitNotRepositoryError',
    suggestion: 'Give a path inside a git repository in the workdir (git init makes one).',
  },
  E_GIT_FAILED: {
    name: 'GitFailedError',
    suggestion: "Read git's own words in the message; nothing was changed when a write command fails.",
  },
  // Printing (docs/assistant-pack-2.md#images)
  E_PRINT_FAILED: {
    name: 'PrintFailedError',
    suggestion:
      'Check the printer (lpstat -p shows them, lpstat -d the default) and that CUPS runs; install cups-client for lp.',
  },
  // Devices of the assistant: music, clipboard, file manager, opener (docs/assistant-devices.md)
  E_DEVICE_FAILED: {
    name: 'DeviceFailedError',
    suggestion:
      "Read the helper's own words in the message (playerctl, xsel, xdg-open, osascript…); check that the desktop session it needs is running.",
  },
  E_MUSIC_NO_PLAYER: {
    name: 'MusicNoPlayerError',
    suggestion:
      'Start a media player that speaks MPRIS (Spotify, VLC, Rhythmbox, a browser), or fix config.player; `playerctl -l` lists the running ones.',
  },
  E_MUSIC_NOT_FOUND: {
    name: 'MusicNotFoundError',
    suggestion:
      'Search with fewer or other words (title, artist or album), or check config.library names your music folder.',
  },
  E_CLIPBOARD_READ_DENIED: {
    name: 'ClipboardReadDeniedError',
    suggestion:
      "Ask the person to paste the text into the conversation; to let this source read the clipboard, add it to the clipboard Tool's config.readSources.",
  },
  // Coding agent of the assistant (docs/assistant-devices.md#coding-agent)
  E_CODING_FAILED: {
    name: 'CodingFailedError',
    suggestion:
      "Check the coding Tool's config (command on PATH, args), and that the repository has a commit to branch from; the message says which.",
  },
  E_CODING_NOTHING_TO_REVIEW: {
    name: 'CodingNothingToReviewError',
    suggestion:
      'Give a diff, a branch with changes (e.g. the one coding__run_task made), or a file that has uncommitted changes.',
  },
  // Command line (gdn): usage mistakes, exit status 2
  E_CLI_USAGE: {
    name: 'CommandLineUsageError',
    suggestion: "Run the command with --help for its arguments and options (e.g. 'gdn run --help').",
  },
  E_CLI_UNKNOWN_COMMAND: {
    name: 'UnknownCommandError',
    suggestion: "Check the spelling: 'gdn --help' lists the commands (in gdn chat, /help lists the chat's commands).",
  },
  E_CLI_UNKNOWN_OPTION: {
    name: 'UnknownOptionError',
    suggestion:
      "Check the spelling: 'gdn <command> --help' lists the command's options. Write a value that starts with '-' as --flag=-value.",
  },
  // Command line (gdn): a failure nothing more precise names (a bug), exit status 1
  E_UNEXPECTED: {
    name: 'UnexpectedError',
    suggestion:
      'This is a bug in gdn or in a module of the bundle: run the command again, and report the message if it stays.',
  },
  // Command line (gdn): a file or directory the command needs, exit status 1
  E_PATH_ACCESS: {
    name: 'PathAccessError',
    suggestion:
      'Check the path named in the message: that its directory exists, that nothing of another kind is in its place, and that the user running gdn may write there.',
  },
} as const satisfies Record<string, { name: string; suggestion: string }>;

export type ErrorCode = keyof typeof errorCodes;

const defaultHelpBase = 'docs/errors/';

/** Help page of a code; GOONDAN_HELP_BASE_URL points links at a hosted copy of docs/errors. */
export function helpUrlFor(code: string): string {
  const base = process.env.GOONDAN_HELP_BASE_URL ?? defaultHelpBase;
  return `${base.endsWith('/') ? base : `${base}/`}${code}.md`;
}
