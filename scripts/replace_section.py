#!/usr/bin/env python3
"""Replaces the text between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in FILE with the
contents of NEW. usage: replace_section.py FILE NAME NEW"""
import sys

path, name, new = sys.argv[1:4]
text = open(path).read()
begin, end = "<!-- %s:begin -->" % name, "<!-- %s:end -->" % name
if begin not in text or end not in text:
    sys.exit("%s has no %s ... %s markers" % (path, begin, end))
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(path, "w").write(head + begin + "\n" + open(new).read().rstrip("\n") + "\n" + end + tail)
