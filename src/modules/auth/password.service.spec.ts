import argon2 from 'argon2';
import { ARGON2_OPTIONS, PasswordService, unmatchableHash } from './password.service';

describe('PasswordService', () => {
  it('verifies a hash it made, and not another password', async () => {
    const passwords = new PasswordService();
    const hash = await passwords.hash('correct horse');
    await expect(passwords.verify(hash, 'correct horse')).resolves.toBe(true);
    await expect(passwords.verify(hash, 'wrong horse')).resolves.toBe(false);
  });

  it('asks for a rehash of a hash made with older parameters, which still verifies', async () => {
    const passwords = new PasswordService();
    const older = await argon2.hash('correct horse', { ...ARGON2_OPTIONS, memoryCost: 19_456, timeCost: 2 });
    await expect(passwords.verify(older, 'correct horse')).resolves.toBe(true);
    expect(passwords.needsRehash(older)).toBe(true);
    expect(passwords.needsRehash(await passwords.hash('correct horse'))).toBe(false);
  });

  describe('the hash verified for an unknown e-mail', () => {
    it('has the parameters of a real hash, so verifying against it costs the same', async () => {
      const dummy = unmatchableHash();
      const real = await argon2.hash('anything', ARGON2_OPTIONS);
      expect(argon2.needsRehash(dummy, ARGON2_OPTIONS)).toBe(false);
      // same prefix (algorithm, version, parameters) and the same salt and digest lengths
      const shape = (encoded: string) => encoded.split('$').map((part, i) => (i < 4 ? part : part.length));
      expect(shape(dummy)).toEqual(shape(real));
    });

    it('is parsed by argon2 and never matches', async () => {
      await expect(argon2.verify(unmatchableHash(), 'not-a-real-password')).resolves.toBe(false);
      await expect(new PasswordService().verify(null, 'any password')).resolves.toBe(false);
    });

    it('is random per process, and no hash is computed to make it', () => {
      const hashing = jest.spyOn(argon2, 'hash');
      try {
        new PasswordService();
        expect(hashing).not.toHaveBeenCalled();
      } finally {
        hashing.mockRestore();
      }
      expect(unmatchableHash()).not.toBe(unmatchableHash());
    });
  });
});
