#!/usr/bin/env python3
"""Writes the journal fixtures of the migration tests (test-only schemas 1, 2 and 4).

Each line carries the CRC-32C of its bytes without the eight hex digits of the checksum,
exactly as JournalStorage writes it. Run from this directory: python3 make-fixtures.py
"""
import json

def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF

def line(fields: dict) -> str:
    body = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
    text = '{"crc":"00000000",' + body[1:]
    data = text.encode()
    crc = crc32c(data[:8] + data[16:])
    return text[:8] + format(crc, "08x") + text[16:] + "\n"

def header(schema):
    return line({"format": "bookmark-index-journal", "schema": schema, "created": 0, "compacted": None})

def illust(id, title, tags):
    return {"id": id, "title": title, "type": "illust", "artistID": 7, "artist": "みどり", "tags": tags,
            "thumb": f"https://i.pximg.net/c/360x360_70/img-master/img/2024/01/01/00/00/00/{id}_p0_square1200.jpg",
            "pages": 1, "width": 1000, "height": 800, "xRestrict": 0, "aiType": 1, "created": 1000, "visible": True,
            "bookmarks": 12}

def upsert(list_key, list_value, id, title, tags, order):
    return {"op": "upsert", list_key: list_value, "order": order, "first": 500, "seen": 600,
            "illust": illust(id, title, tags)}

# Schema 1: the list is named "list", tags are plain strings.
v1 = header(1)
v1 += line({"seq": 1, "changes": [
    upsert("list", "public", 101, "夏の空", ["オリジナル", "猫"], 2),
    upsert("list", "public", 102, "Sunset \"2\"", ["風景"], 1),
    upsert("list", "private", 201, "秘密", ["オリジナル"], 1),
]})
v1 += line({"seq": 2, "changes": [
    {"op": "remove", "list": "public", "id": 102},
    {"op": "metadata", "list": "public", "metadata": {"schema": 1, "lastFull": 100, "lastDelta": None, "cursor": None}},
]})
open("journal-v1.jsonl", "w").write(v1)

# Schema 2: "restrict" as today, tags still plain strings.
v2 = header(2)
v2 += line({"seq": 1, "changes": [upsert("restrict", "private", 301, "two", ["創作", "猫"], 5)]})
open("journal-v2.jsonl", "w").write(v2)

# Schema 1 with a record whose tag is a number: the 2 -> 3 step rejects it (line 3, change 1).
bad = header(1)
bad += line({"seq": 1, "changes": [upsert("list", "public", 101, "ok", ["a"], 1)]})
bad += line({"seq": 2, "changes": [upsert("list", "public", 102, "bad", [42], 2)]})
open("journal-v1-bad-tag.jsonl", "w").write(bad)

# Schema 4: newer than the test plan's current version 3.
v4 = header(4)
v4 += line({"seq": 1, "changes": [{"op": "removeAll", "restrict": "public"}]})
open("journal-v4.jsonl", "w").write(v4)
