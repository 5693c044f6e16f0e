import { INestApplication, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, ModulesContainer } from '@nestjs/core';
import { AUTH_META, AuthRule, PUBLIC_META } from '../../src/common/auth/authenticated.decorator';
import { EXPAND_META, IGNORE_EXPAND_META } from '../../src/common/expand/expand';

/** One controller route of the application, read from Nest's own metadata. */
export interface ControllerRoute {
  controller: string;
  /** The controller class itself (its constructor's parameter types, its class-level metadata). */
  controllerClass: new (...a: unknown[]) => unknown;
  handler: string;
  method: string;
  /** Nest form: `/api/v2/workspaces/:slug/projects/:project_id` (no trailing slash). */
  path: string;
  rule: AuthRule | undefined;
  isPublic: boolean;
  expand: readonly string[] | undefined;
  ignoresExpand: boolean;
}

function join(...parts: string[]): string {
  const p = parts
    .flatMap((x) => x.split('/'))
    .filter((s) => s.length > 0)
    .join('/');
  return `/${p}`;
}

/**
 * Walks every controller of the running application (DiscoveryService + MetadataScanner) and returns
 * each route handler with the access rule the AuthGuard would read for it (handler first, then class).
 */
export function controllerRoutes(app: INestApplication): ControllerRoute[] {
  const discovery = new DiscoveryService(app.get(ModulesContainer));
  const scanner = new MetadataScanner();
  const out: ControllerRoute[] = [];
  for (const wrapper of discovery.getControllers()) {
    const cls = wrapper.metatype as (new (...a: unknown[]) => unknown) | null;
    if (!cls || !cls.prototype) continue;
    const classPaths = ([] as string[]).concat(Reflect.getMetadata(PATH_METADATA, cls) ?? '/');
    for (const name of scanner.getAllMethodNames(cls.prototype)) {
      const handler = (cls.prototype as Record<string, unknown>)[name] as object;
      const methodPath = Reflect.getMetadata(PATH_METADATA, handler);
      if (methodPath === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod] ?? 'GET';
      const rule = (Reflect.getMetadata(AUTH_META, handler) ?? Reflect.getMetadata(AUTH_META, cls)) as
        AuthRule | undefined;
      const isPublic = !!(Reflect.getMetadata(PUBLIC_META, handler) ?? Reflect.getMetadata(PUBLIC_META, cls));
      for (const cp of classPaths) {
        for (const mp of ([] as string[]).concat(methodPath)) {
          out.push({
            controller: cls.name,
            controllerClass: cls,
            handler: name,
            method,
            path: join(cp, mp),
            rule,
            isPublic,
            expand: Reflect.getMetadata(EXPAND_META, handler),
            ignoresExpand: !!Reflect.getMetadata(IGNORE_EXPAND_META, handler),
          });
        }
      }
    }
  }
  return out;
}

/** `/api/v2/x/:id` -> `/api/v2/x/{id}/`, the public form used by the OpenAPI document. */
export function openApiPath(nestPath: string): string {
  const p = nestPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  return p.startsWith('/api/v2/') && !p.endsWith('/') ? `${p}/` : p;
}
