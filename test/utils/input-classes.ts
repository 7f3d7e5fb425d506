import type { INestApplicationContext } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';

// class-transformer keeps @Type() in a storage it does not export from its entry point; its typings
// exist only under types/. Read it to find a field's nested DTO (members[] → MemberInputDto).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: MetadataStorage;
};

export type InputClass = new () => object;

/** The class a property's @Type() names (the DTO of a nested object or of each item of a list). */
export function nestedClassOf(type: InputClass, property: string): InputClass | undefined {
  return defaultMetadataStorage.findTypeMetadata(type, property)?.typeFunction?.() as InputClass | undefined;
}

/**
 * Every class a controller method takes as an argument or documents as its body (@ApiBody), by
 * name: the body DTOs the document's schemas are named after (a class such as AddMemberDto that
 * only inherits its rules has none of its own in class-validator's storage, so it is found through
 * the route, not the storage).
 */
export function routeArgumentClasses(app: INestApplicationContext): Map<string, InputClass> {
  const byName = new Map<string, InputClass>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const proto = (wrapper.metatype as { prototype?: object } | null)?.prototype;
      if (!proto) continue;
      for (const method of Object.getOwnPropertyNames(proto)) {
        const documented: { type?: unknown }[] =
          Reflect.getMetadata('swagger/apiParameters', (proto as Record<string, object>)[method]) ?? [];
        const types: unknown[] = [
          ...(Reflect.getMetadata('design:paramtypes', proto, method) ?? []),
          ...documented.map((parameter) => parameter.type),
        ];
        for (const type of types) {
          if (typeof type === 'function' && type.name) byName.set(type.name, type as InputClass);
        }
      }
    }
  }
  return byName;
}
