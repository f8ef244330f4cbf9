import { describe, expect, test } from 'bun:test';
import { checkOAuthApps } from './check-oauth-apps.ts';
import type { DeclaredResource } from './check-references.ts';
import { parseYamlDocuments } from './parse-yaml-documents.ts';
import type { OAuthAppResource } from './resources.ts';

function declared(spec: Record<string, unknown>): DeclaredResource[] {
  const resource = {
    apiVersion: 'goondan.ai/v1',
    kind: 'OAuthApp',
    metadata: { name: 'tv' },
    spec: { clientId: 'c', scopes: ['openid'], subjectMode: 'global', flow: 'deviceCode', ...spec },
  } as unknown as OAuthAppResource;
  const text = JSON.stringify(resource);
  const [document] = parseYamlDocuments({ text, file: 'goondan.yaml', absoluteFile: '/bundle/goondan.yaml' }).documents;
  return [{ resource, document: document! }];
}

const endpoints = { token: 'https://auth.example.com/token', deviceAuthorization: 'https://auth.example.com/device' };

describe('checkOAuthApps: issuer and endpoints', () => {
  test('issuer, endpoints, or both are accepted; neither is E_OAUTH_APP_INVALID at spec', () => {
    expect(checkOAuthApps(declared({ issuer: 'https://auth.example.com' }))).toEqual([]);
    expect(checkOAuthApps(declared({ endpoints }))).toEqual([]);
    expect(checkOAuthApps(declared({ issuer: 'https://id.example.com', endpoints }))).toEqual([]);
    const [problem, ...more] = checkOAuthApps(declared({}));
    expect(more).toEqual([]);
    expect(problem?.code).toBe('E_OAUTH_APP_INVALID');
    expect(problem?.message).toContain('spec.issuer (discovery), spec.endpoints, or both');
  });
});
