# PgBouncer from Debian's package (the version `npm run test:scale` runs), with deploy/pgbouncer.ini.
# Built by docker/compose.yaml; the auth file is written at start from DB_USER and DB_PASSWORD.
FROM debian:bookworm-slim
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends pgbouncer \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /var/run/postgresql \
  && chown postgres:postgres /etc/pgbouncer /var/run/postgresql
COPY deploy/pgbouncer.ini /etc/pgbouncer/pgbouncer.ini
USER postgres
EXPOSE 6432
CMD ["sh", "-c", "printf '\"%s\" \"%s\"\\n' \"$DB_USER\" \"$DB_PASSWORD\" > /etc/pgbouncer/userlist.txt && chmod 600 /etc/pgbouncer/userlist.txt && exec pgbouncer /etc/pgbouncer/pgbouncer.ini"]
