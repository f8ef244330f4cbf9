/**
 * The `mcp` Extension of @goondan/base: the tools of MCP servers as tools of the agent (spec §12, §13.1
 * `source.type: 'mcp'`). Declared in packages/base/goondan.yaml; an Agent lists it with its servers:
 *
 *   extensions:
 *     - ref: Extension/mcp
 *       config:
 *         servers:
 *           - { name: files, command: bun, args: [./server.ts], env: { ROOT: /data }, timeoutMs: 30000 }
 *           - { name: remote, url: "http://127.0.0.1:8080/mcp" }
 *
 * Each MCP tool `t` of server `s` is registered as `s__t` (made provider-safe, see tool-names.ts). Behaviour is
 * described in docs; the rules live next to the code: parse-config.ts (config), mcp-connection.ts (connect,
 * reconnect, timeouts), list-mcp-tools.ts (tools/list, each tool checked), mcp-bridge.ts (registration,
 * list_changed, collisions), check-call-result.ts and to-tool-output.ts (results).
 */
import type { ExtensionApi } from '@goondan/core';
import { GoondanError } from '@goondan/core/errors';
import { McpBridge } from './mcp-bridge.ts';
import { parseMcpConfig } from './parse-config.ts';

export { McpBridge, type McpBridgeOptions } from './mcp-bridge.ts';
export { McpConnection } from './mcp-connection.ts';
export { type McpServerConfig, parseMcpConfig } from './parse-config.ts';
export { mcpToolName } from './tool-names.ts';

export async function register(api: ExtensionApi): Promise<void> {
  let servers: ReturnType<typeof parseMcpConfig>;
  try {
    servers = parseMcpConfig(api.config);
  } catch (thrown) {
    // A missing environment variable keeps its own code; the message says which extension and field.
    if (thrown instanceof GoondanError) {
      throw new GoondanError(thrown.code, `Extension '${api.extensionName}': ${thrown.message}`, {
        suggestion: thrown.suggestion,
      });
    }
    throw thrown;
  }
  const bridge = new McpBridge({ api, servers });
  api.onClose(() => bridge.close());
  await bridge.start();
}
