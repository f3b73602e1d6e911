import type { SchemaObject } from 'openapi3-ts/oas30';
import { describe, expect, it } from 'vitest';

import * as contract from '../src/index.js';
import { createOpenApiDocument } from '../src/openapi.js';

const { DETAIL_CODES } = contract;

/** Every `{ name: 'code' }` object the contract exports as `...Code`, the status codes aside. */
const codeGroups = Object.entries(contract).filter(
  ([name, value]) => name.endsWith('Code') && name !== 'ErrorCode' && typeof value === 'object' && value !== null,
) as [string, Record<string, string>][];

describe('error detail codes, declared once', () => {
  it('DETAIL_CODES holds every code of every group the contract exports, once each', () => {
    // The groups the service's layers raise: a new group that is not gathered must fail here.
    expect(codeGroups.map(([name]) => name).sort()).toEqual([
      'AccessCode',
      'ApiKeyCode',
      'AuthenticationCode',
      'ChangeCode',
      'DeliveryCode',
      'FeedCode',
      'ImportCode',
      'LicenceWarningCode',
      'LifecycleCode',
      'ReportCode',
      'RequestCode',
      'SchemaIssueCode',
      'ServiceCode',
      'ValidationCode',
      'WebhookCode',
      'WriteSafetyCode',
    ]);
    for (const [name, group] of codeGroups)
      for (const code of Object.values(group)) expect(DETAIL_CODES, `${name}: ${code}`).toContain(code);
    expect(new Set(DETAIL_CODES).size).toBe(DETAIL_CODES.length);
  });

  it("holds zod's issue codes and `required`, which a 400 for a body that does not fit carries", () => {
    for (const code of ['required', 'invalid_type', 'too_small', 'too_big', 'invalid_enum_value', 'unrecognized_keys'])
      expect(DETAIL_CODES).toContain(code);
  });

  it('no two groups give one code two meanings', () => {
    const owners = new Map<string, string>();
    for (const [name, group] of codeGroups)
      for (const code of Object.values(group)) {
        expect(owners.get(code), `${code} in ${name} and ${owners.get(code)}`).toBeUndefined();
        owners.set(code, name);
      }
  });

  it('are listed by the OpenAPI document on ErrorDetail.code, as an extensible list rather than a closed enum', () => {
    const detail = createOpenApiDocument().components!.schemas!.ErrorDetail as SchemaObject;
    const code = detail.properties!.code as SchemaObject & { 'x-extensible-enum'?: string[] };
    expect(code['x-extensible-enum']).toEqual([...DETAIL_CODES]);
    expect(code.enum).toBeUndefined();
    for (const value of DETAIL_CODES) expect(code.description).toContain(`\`${value}\``);
  });
});
