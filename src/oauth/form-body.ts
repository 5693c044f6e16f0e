import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isBodyless } from '../common/http/bodyless';
import { deferInputProblem } from '../common/http/request-sanity';
import { ProblemException } from '../common/errors/problem.exception';

/** The largest sign-in or consent form accepted (an email, a password, a token, a decision). */
const FORM_LIMIT = 16 * 1024;

type FormMode = 'raw' | 'form';

/**
 * How a route takes `application/x-www-form-urlencoded` bodies: `raw` leaves the stream unread for oidc-provider
 * (the token, revocation and introspection endpoints read and bound it themselves); `form` parses it into an
 * object (the sign-in and consent pages). Every other route refuses such a body (415), as before.
 */
export const FormBody = (mode: FormMode) => RouteConfig({ formBody: mode });

function formMode(req: FastifyRequest): FormMode | undefined {
  return (req.routeOptions?.config as { formBody?: FormMode } | undefined)?.formBody;
}

/** Registers the urlencoded parser on the Fastify instance (create-app accepts JSON only). */
@Injectable()
export class FormBodyParser implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance?.<FastifyInstance>();
    if (!fastify) return;
    fastify.addContentTypeParser(
      /^application\/x-www-form-urlencoded(\s*;.*)?$/i,
      (req: FastifyRequest, payload: NodeJS.ReadableStream, done: (err: Error | null, body?: unknown) => void) => {
        const mode = formMode(req);
        if (mode === 'raw') return done(null, undefined);
        if (mode === 'form') return readForm(payload, done);
        if (!isBodyless(req)) deferInputProblem(req, ProblemException.unsupportedMediaType());
        payload.resume();
        done(null, undefined);
      },
    );
  }
}

function readForm(payload: NodeJS.ReadableStream, done: (err: Error | null, body?: unknown) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let failed = false;
  payload.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > FORM_LIMIT && !failed) {
      failed = true;
      done(Object.assign(new Error('The form is too large.'), { statusCode: 413 }));
    }
    if (!failed) chunks.push(chunk);
  });
  payload.on('end', () => {
    if (!failed) done(null, Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
  });
  payload.on('error', (err: Error) => {
    if (!failed) done(err);
  });
}
