import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';

/**
 * Marks a route that takes no request body (archive, unarchive, enable, mark-default): whatever is
 * sent, of any content type, is ignored rather than parsed (spec: "Bodyless; any body is ignored").
 */
export const Bodyless = () => RouteConfig({ bodyless: true });

export function isBodyless(req: FastifyRequest): boolean {
  return (req.routeOptions?.config as { bodyless?: boolean } | undefined)?.bodyless === true;
}
