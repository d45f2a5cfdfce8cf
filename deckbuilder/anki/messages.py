"""The protobuf messages an Anki package holds, decoded by the ``protobuf`` library.

A current package (Anki 2.1.50 and later) lists its media as a ``MediaEntries`` message,
and a schema 18 collection keeps each note type's and card template's settings as a
``Notetype.Config`` and ``Notetype.Template.Config`` message. The declarations below are
the parts of Anki's own ``proto/anki/import_export.proto`` and ``proto/anki/notetypes.proto``
that this tool reads, with Anki's field numbers; fields left out are kept by the
library as unknown fields and never looked at. They live in a pool of their own, apart
from the ``anki`` package's descriptors when both are loaded.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple

# DecodeError is caught by the readers from here, so that protobuf stays in this module.
from google.protobuf.message import DecodeError as DecodeError
from google.protobuf.message import Message

if TYPE_CHECKING:
    from google.protobuf.descriptor_pool import DescriptorPool

_DECLARATION = """
name: "deckbuilder/anki_package.proto"
package: "deckbuilder.anki"
syntax: "proto3"
message_type {
  name: "MediaEntries"
  field { name: "entries" number: 1 label: LABEL_REPEATED type: TYPE_MESSAGE
          type_name: ".deckbuilder.anki.MediaEntries.MediaEntry" }
  nested_type {
    name: "MediaEntry"
    field { name: "name" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING }
    field { name: "size" number: 2 label: LABEL_OPTIONAL type: TYPE_UINT32 }
    field { name: "sha1" number: 3 label: LABEL_OPTIONAL type: TYPE_BYTES }
  }
}
message_type {
  name: "NotetypeConfig"
  field { name: "kind" number: 1 label: LABEL_OPTIONAL type: TYPE_ENUM
          type_name: ".deckbuilder.anki.NotetypeConfig.Kind" }
  field { name: "sort_field_idx" number: 2 label: LABEL_OPTIONAL type: TYPE_UINT32 }
  field { name: "css" number: 3 label: LABEL_OPTIONAL type: TYPE_STRING }
  field { name: "original_stock_kind" number: 9 label: LABEL_OPTIONAL type: TYPE_INT32 }
  enum_type {
    name: "Kind"
    value { name: "KIND_NORMAL" number: 0 }
    value { name: "KIND_CLOZE" number: 1 }
  }
}
message_type {
  name: "TemplateConfig"
  field { name: "q_format" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING }
  field { name: "a_format" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING }
}
"""

_KIND_CLOZE = 1


@cache
def _pool() -> DescriptorPool:
    # Built when a package or collection is first read. protobuf's descriptor modules load
    # slower than `check` reads a small deck, and `check` and `build` import the readers
    # (for a study block's review history) without reading anything with them mostly.
    from google.protobuf import descriptor_pb2, descriptor_pool, text_format

    pool = descriptor_pool.DescriptorPool()
    pool.Add(text_format.Parse(_DECLARATION, descriptor_pb2.FileDescriptorProto()))
    return pool


@cache
def _message(name: str) -> type[Message]:
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(
        _pool().FindMessageTypeByName(f"deckbuilder.anki.{name}")
    )


def media_names(data: bytes) -> list[str]:
    """The file names a ``MediaEntries`` message lists, in order: zip member ``"0"``
    holds the first. Raises DecodeError when ``data`` is not such a message."""
    entries: Any = _message("MediaEntries").FromString(data)
    return [str(entry.name) for entry in entries.entries]


class NotetypeSettings(NamedTuple):
    """What this tool reads of a ``Notetype.Config``."""

    is_cloze: bool
    css: str
    sort_field: int  # the index of the field Anki's browser sorts by
    stock_kind: int  # Anki's original stock kind (6: image occlusion; 0: none)


def notetype_config(data: bytes) -> NotetypeSettings:
    """What a ``Notetype.Config`` says (see :class:`NotetypeSettings`). Raises
    DecodeError when ``data`` is not such a message."""
    config: Any = _message("NotetypeConfig").FromString(data)
    return NotetypeSettings(
        int(config.kind) == _KIND_CLOZE,
        str(config.css),
        int(config.sort_field_idx),
        int(config.original_stock_kind),
    )


def template_formats(data: bytes) -> tuple[str, str]:
    """The front and back templates of a ``Notetype.Template.Config``. Raises
    DecodeError when ``data`` is not such a message."""
    config: Any = _message("TemplateConfig").FromString(data)
    return str(config.q_format), str(config.a_format)
