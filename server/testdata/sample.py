import hashlib
import os
import sys
import time
from dataclasses import dataclass


@dataclass
class Header:
    name: str
    value: str


def format_size(n):
    units = ['B', 'KiB', 'MiB', 'GiB']
    i = 0
    while n >= 1024 and i < len(units) - 1:
        n /= 1024
        i += 1
    return f'{n:.1f} {units[i]}'


def load_plugins(directory):
    plugins = []
    for entry in os.listdir(directory):
        if entry.endswith('.py'):
            plugins.append(entry[:-3])
    plugins.sort()
    return plugins


def retry(fn, times=3):
    for attempt in range(times):
        try:
            return fn()
        except OSError:
            time.sleep(2 ** attempt)
    return fn()


def render_table(rows):
    width = max(len(r) for r in rows)
    out = []
    for r in rows:
        out.append(r.ljust(width))
    return '\n'.join(out)


def parse_header(raw):
    if not raw:
        raise ValueError("empty header")
    name, _, value = raw.partition(":")
    return Header(name.strip(), value.strip())


def checksum(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(65536), b''):
            h.update(chunk)
    return h.hexdigest()


def merge_dicts(*dicts):
    out = {}
    for d in dicts:
        for k, v in d.items():
            out[k] = v
    return out


def colorize(text, color):
    codes = {'red': 31, 'green': 32, 'yellow': 33}
    code = codes.get(color, 0)
    return f'\x1b[{code}m{text}\x1b[0m'


def parse_duration(text):
    units = {'s': 1, 'm': 60, 'h': 3600}
    value, unit = text[:-1], text[-1]
    return int(value) * units[unit]


def main():
    for line in sys.stdin:
        print(parse_header(line.rstrip("\n")))
