import { AppError } from '../../common/errors/app-error';
import { assertMayAssign, assertMayChange, assertOwnersRemain, roleCeiling } from './role-rules';

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return (e as AppError).code;
  }
}

describe('role rules', () => {
  it('lets a non-member platform admin act as an OWNER', () => {
    expect(roleCeiling(null)).toBe('OWNER');
    expect(roleCeiling('ADMIN')).toBe('ADMIN');
  });

  it('refuses raising a member above the caller, allows up to the caller', () => {
    expect(codeOf(() => assertMayAssign('ADMIN', 'OWNER'))).toBe('FORBIDDEN');
    expect(codeOf(() => assertMayAssign('ADMIN', 'ADMIN'))).toBeUndefined();
    expect(codeOf(() => assertMayAssign('OWNER', 'OWNER'))).toBeUndefined();
  });

  it('refuses changing someone ranked above the caller', () => {
    expect(codeOf(() => assertMayChange('ADMIN', 'OWNER'))).toBe('FORBIDDEN');
    expect(codeOf(() => assertMayChange('ADMIN', 'ADMIN'))).toBeUndefined();
  });

  it('refuses leaving a community without an OWNER', () => {
    expect(codeOf(() => assertOwnersRemain(0))).toBe('CONFLICT');
    expect(codeOf(() => assertOwnersRemain(1))).toBeUndefined();
  });
});
