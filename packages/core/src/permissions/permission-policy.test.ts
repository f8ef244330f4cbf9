import { describe, expect, test } from 'bun:test';
import { GoondanError } from '../errors/goondan-error.ts';
import { DEFAULT_APPROVAL_TIMEOUT_SECONDS, PermissionPolicy, toolNameGlob } from './permission-policy.ts';
import type { AgentPermissionsSpec } from './permission-types.ts';

const cli = { kind: 'user', name: 'cli' };
const telegram = { kind: 'user', name: 'telegram' };
const coordinator = { kind: 'agent', name: 'coordinator' };

describe('PermissionPolicy defaults', () => {
  test('without rules: safe and sensitive run, restricted asks', () => {
    const policy = new PermissionPolicy();
    expect(policy.decide('file-system__read', 'safe')).toEqual({ decision: 'allow', rule: 'default safe: allow' });
    expect(policy.decide('http-fetch__get', 'sensitive')).toEqual({
      decision: 'allow',
      rule: 'default sensitive: allow',
    });
    expect(policy.decide('bash__exec', 'restricted')).toEqual({ decision: 'ask', rule: 'default restricted: ask' });
  });

  test('an empty spec is the default policy, for any source', () => {
    const policy = new PermissionPolicy({ sources: {} });
    expect(policy.decide('bash__exec', 'restricted', telegram).decision).toBe('ask');
    expect(policy.decide('jobs__poll', 'safe', coordinator).decision).toBe('allow');
  });
});

describe('PermissionPolicy rules of one level', () => {
  test('a category rule replaces the default for that category only', () => {
    const policy = new PermissionPolicy({ sensitive: 'ask', restricted: 'deny' });
    expect(policy.decide('file-system__write', 'sensitive')).toEqual({ decision: 'ask', rule: 'sensitive: ask' });
    expect(policy.decide('bash__exec', 'restricted')).toEqual({ decision: 'deny', rule: 'restricted: deny' });
    expect(policy.decide('file-system__read', 'safe')).toEqual({ decision: 'allow', rule: 'default safe: allow' });
  });

  test('an exact tool rule beats a glob, which beats the category', () => {
    const policy = new PermissionPolicy({
      restricted: 'deny',
      tools: { 'bash__*': 'ask', bash__script: 'allow' },
    });
    expect(policy.decide('bash__script', 'restricted')).toEqual({
      decision: 'allow',
      rule: 'tools.bash__script: allow',
    });
    expect(policy.decide('bash__exec', 'restricted')).toEqual({ decision: 'ask', rule: 'tools."bash__*": ask' });
    expect(policy.decide('other__run', 'restricted')).toEqual({ decision: 'deny', rule: 'restricted: deny' });
  });

  test('a tool rule may loosen its category: a restricted tool can be allowed by name', () => {
    const policy = new PermissionPolicy({ tools: { bash__exec: 'allow' } });
    expect(policy.decide('bash__exec', 'restricted').decision).toBe('allow');
    expect(policy.decide('bash__script', 'restricted').decision).toBe('ask');
  });

  test('the longest glob wins, whatever order the rules are written in', () => {
    const policy = new PermissionPolicy({
      tools: { '*': 'deny', 'files__*': 'ask', 'files__read*': 'allow' },
    });
    expect(policy.decide('files__read_text', 'sensitive')).toEqual({
      decision: 'allow',
      rule: 'tools."files__read*": allow',
    });
    expect(policy.decide('files__write', 'sensitive')).toEqual({ decision: 'ask', rule: 'tools."files__*": ask' });
    expect(policy.decide('bash__exec', 'safe')).toEqual({ decision: 'deny', rule: 'tools."*": deny' });
  });

  test('globs match whole names: * any run, ? one character, {a,b} either; dots are literal', () => {
    expect(toolNameGlob('files__*').test('files__read')).toBe(true);
    expect(toolNameGlob('files__*').test('my-files__read')).toBe(false);
    expect(toolNameGlob('a.b*').test('a.bc')).toBe(true);
    expect(toolNameGlob('a.b*').test('axbc')).toBe(false);
    expect(toolNameGlob('*__list').test('agents__list')).toBe(true);
    expect(toolNameGlob('*__list').test('agents__list_all')).toBe(false);
    expect(toolNameGlob('file-system__{read,list}').test('file-system__list')).toBe(true);
    expect(toolNameGlob('file-system__{read,list}').test('file-system__write')).toBe(false);
    expect(toolNameGlob('git__?og').test('git__log')).toBe(true);
    const policy = new PermissionPolicy({ tools: { 'file-system__{read,list}': 'allow', 'file-system__*': 'deny' } });
    expect(policy.decide('file-system__read', 'safe').decision).toBe('allow');
    expect(policy.decide('file-system__write', 'safe').decision).toBe('deny');
  });

  test('the same call gets the same verdict twice (cached) and different categories are told apart', () => {
    const policy = new PermissionPolicy({ sensitive: 'ask' });
    const first = policy.decide('x__y', 'sensitive', cli);
    expect(policy.decide('x__y', 'sensitive', cli)).toBe(first);
    expect(policy.decide('x__y', 'safe', cli).decision).toBe('allow');
  });
});

describe('PermissionPolicy sources only tighten', () => {
  test('a source rule tightens the agent rule and names itself', () => {
    const policy = new PermissionPolicy({ sources: { 'user:telegram': { sensitive: 'ask', restricted: 'deny' } } });
    expect(policy.decide('http-fetch__get', 'sensitive', telegram)).toEqual({
      decision: 'ask',
      rule: 'sources.user:telegram.sensitive: ask',
    });
    expect(policy.decide('bash__exec', 'restricted', telegram)).toEqual({
      decision: 'deny',
      rule: 'sources.user:telegram.restricted: deny',
    });
    expect(policy.decide('bash__exec', 'restricted', cli)).toEqual({
      decision: 'ask',
      rule: 'default restricted: ask',
    });
    expect(policy.decide('bash__exec', 'restricted')).toEqual({ decision: 'ask', rule: 'default restricted: ask' });
  });

  test('a source saying allow cannot loosen an agent deny or ask', () => {
    const policy = new PermissionPolicy({
      restricted: 'deny',
      tools: { 'http-fetch__post': 'ask' },
      sources: { user: { restricted: 'allow', tools: { 'http-fetch__post': 'allow' } } },
    });
    expect(policy.decide('bash__exec', 'restricted', cli)).toEqual({ decision: 'deny', rule: 'restricted: deny' });
    expect(policy.decide('http-fetch__post', 'sensitive', cli)).toEqual({
      decision: 'ask',
      rule: 'tools.http-fetch__post: ask',
    });
  });

  test('a source allow cannot loosen the default either', () => {
    const policy = new PermissionPolicy({ sources: { 'user:cli': { restricted: 'allow' } } });
    expect(policy.decide('bash__exec', 'restricted', cli)).toEqual({
      decision: 'ask',
      rule: 'default restricted: ask',
    });
  });

  test('both the `kind` and the `kind:name` keys apply; the strictest wins', () => {
    const policy = new PermissionPolicy({
      sources: {
        agent: { sensitive: 'ask' },
        'agent:coordinator': { tools: { 'file-system__write': 'deny' } },
        'agent:reviewer': { sensitive: 'allow' },
      },
    });
    expect(policy.decide('file-system__write', 'sensitive', coordinator)).toEqual({
      decision: 'deny',
      rule: 'sources.agent:coordinator.tools.file-system__write: deny',
    });
    expect(policy.decide('http-fetch__get', 'sensitive', coordinator)).toEqual({
      decision: 'ask',
      rule: 'sources.agent.sensitive: ask',
    });
    expect(policy.decide('http-fetch__get', 'sensitive', { kind: 'agent', name: 'reviewer' }).decision).toBe('ask');
    expect(policy.decide('http-fetch__get', 'sensitive', cli).decision).toBe('allow');
  });

  test('a kind-wide deny stays a deny even when the kind:name rule only asks', () => {
    const policy = new PermissionPolicy({
      sources: { user: { tools: { 'bash__*': 'deny' } }, 'user:cli': { tools: { 'bash__*': 'ask' } } },
    });
    expect(policy.decide('bash__exec', 'restricted', cli)).toEqual({
      decision: 'deny',
      rule: 'sources.user.tools."bash__*": deny',
    });
  });

  test('the verdict is cached per source: one source does not leak into another', () => {
    const policy = new PermissionPolicy({ sources: { 'user:telegram': { safe: 'deny' } } });
    expect(policy.decide('jobs__poll', 'safe', telegram).decision).toBe('deny');
    expect(policy.decide('jobs__poll', 'safe', cli).decision).toBe('allow');
    expect(policy.decide('jobs__poll', 'safe').decision).toBe('allow');
    expect(policy.decide('jobs__poll', 'safe', telegram).decision).toBe('deny');
  });
});

describe('PermissionPolicy registry direct calls', () => {
  test('none by default', () => {
    expect(new PermissionPolicy().allowsDirectCall('bash__exec')).toBe(false);
  });

  test('only the names and globs listed in registryDirectCalls', () => {
    const policy = new PermissionPolicy({ registryDirectCalls: ['files__*', 'jobs__poll'] });
    expect(policy.allowsDirectCall('files__read')).toBe(true);
    expect(policy.allowsDirectCall('jobs__poll')).toBe(true);
    expect(policy.allowsDirectCall('jobs__poll_all')).toBe(false);
    expect(policy.allowsDirectCall('bash__exec')).toBe(false);
  });

  test('allowAllRegistryDirectCalls (legacy policy.allowRegistryDirectCalls) opens every name', () => {
    const policy = new PermissionPolicy({}, { allowAllRegistryDirectCalls: true });
    expect(policy.allowsDirectCall('bash__exec')).toBe(true);
    expect(policy.allowsDirectCall('anything__at_all')).toBe(true);
  });

  test('a direct call is still subject to the decision of its tool', () => {
    const policy = new PermissionPolicy({ registryDirectCalls: ['*'], restricted: 'deny' });
    expect(policy.allowsDirectCall('bash__exec')).toBe(true);
    expect(policy.decide('bash__exec', 'restricted').decision).toBe('deny');
  });
});

describe('PermissionPolicy approval timeout', () => {
  test('defaults to 600 seconds', () => {
    expect(DEFAULT_APPROVAL_TIMEOUT_SECONDS).toBe(600);
    expect(new PermissionPolicy().approvalTimeoutMs).toBe(600_000);
  });

  test('approvalTimeoutSeconds overrides it', () => {
    expect(new PermissionPolicy({ approvalTimeoutSeconds: 30 }).approvalTimeoutMs).toBe(30_000);
  });
});

describe('PermissionPolicy refuses a spec it would read leniently', () => {
  const refused = (spec: unknown) => {
    try {
      new PermissionPolicy(spec as AgentPermissionsSpec);
    } catch (thrown) {
      return thrown instanceof GoondanError ? `${thrown.code} ${thrown.message}` : String(thrown);
    }
    return null;
  };

  test('a misspelt decision, field or type is E_RESOURCE_INVALID naming it, never a rule that allows', () => {
    // Built in code (not through gdn validate): 'allw' would otherwise be neither deny nor ask, so the call ran.
    expect(refused({ restricted: 'allw' })).toBe(
      'E_RESOURCE_INVALID Agent spec.permissions.restricted must be allow, ask or deny (got "allw").',
    );
    expect(refused({ tools: { bash__exec: 'Deny' } })).toContain('spec.permissions.tools.bash__exec must be allow');
    expect(refused({ tool: { bash__exec: 'deny' } })).toContain('spec.permissions has an unknown field "tool"');
    expect(refused({ sources: { user: { restrictd: 'deny' } } })).toContain(
      'spec.permissions.sources.user has an unknown field "restrictd"',
    );
    expect(refused({ sources: { user: 'deny' } })).toContain('spec.permissions.sources.user must be an object');
    expect(refused({ sources: { 'user:*': { restricted: 'deny' } } })).toContain('not a kind or kind:name');
    expect(refused({ tools: { 'bash__exec ': 'deny' } })).toContain('is not a tool name or glob');
    expect(refused({ approvalTimeoutSeconds: '30' })).toContain('approvalTimeoutSeconds must be an integer');
    expect(refused({ approvalTimeoutSeconds: 0 })).toContain('approvalTimeoutSeconds must be an integer');
    expect(refused({ registryDirectCalls: 'bash__*' })).toContain('registryDirectCalls must be a list');
    expect(refused([])).toContain('spec.permissions must be an object (got a list)');
  });

  test('a glob whose braces do not pair (it would match no tool: a deny that denies nothing) is refused', () => {
    expect(refused({ tools: { 'bash__{exec': 'deny' } })).toContain(
      `spec.permissions.tools: "bash__{exec" has a '{' without its '}'`,
    );
    expect(refused({ sources: { agent: { tools: { 'bash__exec}': 'deny' } } } })).toContain("without its '}'");
    expect(refused({ registryDirectCalls: ['file-system__{read,list'] })).toContain("without its '}'");
    expect(refused({ tools: { 'bash__{exec,script}': 'deny', 'file-system__*': 'ask' } })).toBeNull();
  });
});
