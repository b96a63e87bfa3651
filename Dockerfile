# One image for every role of the local Dask cluster in docker-compose.yml: the scheduler
# (`dask scheduler`), the workers (`dask worker ...`) and the client (`tilesweep ...`).
# See docs/docker.md.
#
# BASE: the official image by default. Where no registry can be reached, build a local
# stand-in with docker/local-base.sh and pass its tag (docs/docker.md, "No registry").
ARG BASE=python:3.11-slim
FROM ${BASE}

# The unprivileged user everything runs as. Build with
#   docker compose build --build-arg UID=$(id -u) --build-arg GID=$(id -g)
# when your host user is not 1000, so files in the bind-mounted ./results are yours.
ARG UID=1000
ARG GID=1000

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    NUMBA_CACHE_DIR=/var/cache/numba \
    TILESWEEP_STORE=/data/pdb

# --non-unique: a host gid such as 20 (macOS "staff") may already name a group in Debian.
RUN groupadd --non-unique --gid "${GID}" tilesweep \
 && useradd --non-unique --uid "${UID}" --gid "${GID}" --create-home --shell /bin/bash tilesweep

WORKDIR /app

# The dependencies of pyproject.toml in a layer of their own (numba, pyarrow, dask: the
# slow part of a build), reused as long as pyproject.toml is unchanged.
COPY pyproject.toml /app/
RUN python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep='\n')" \
        > /tmp/requirements.txt \
 && python -m pip install --upgrade pip \
 && python -m pip install -r /tmp/requirements.txt

# tilesweep itself (a regular install, not editable: the image needs no source tree).
COPY . /app
RUN python -m pip install --no-deps . \
 && rm -rf /app/build

# Writable places for the unprivileged user: numba's on-disk kernel cache, the pattern
# database store and the results folder. Docker copies this ownership into an empty named
# volume the first time it is mounted, so the shared store volume is writable too.
RUN mkdir -p "${NUMBA_CACHE_DIR}" "${TILESWEEP_STORE}" /results \
 && chown -R tilesweep:tilesweep "${NUMBA_CACHE_DIR}" /data /results

USER tilesweep
WORKDIR /home/tilesweep

# Compile the common searches' kernels into numba's on-disk cache, so a worker's first task
# loads them in seconds (compiling took minutes on a busy machine); `tilesweep warm` with
# no option compiles every kernel. Also a smoke test: every dependency imports.
RUN tilesweep warm --size 3 --size 4 --algorithm idastar --algorithm astar \
        --heuristic manhattan --heuristic linear-conflict --heuristic misplaced \
 && tilesweep solve "1 2 3 4 5 6 7 0 8" --json > /dev/null

EXPOSE 8786 8787
CMD ["tilesweep", "--help"]
