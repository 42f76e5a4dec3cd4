"""The pipeline's first stages as the page runs them: the data (made from the settings, uploaded or
drawn) and the partition, from the caches, with the last data that worked kept and a failing
stage's settings set back (``page.fail_and_restore``)."""

from __future__ import annotations

import hashlib

import numpy as np
import streamlit as st

import kernelviz as kv
from kernelviz import pipeline
from kernelviz.outside import message
from kernelviz.ui import caches, edits
from kernelviz.ui.page import busy, data_settings, fail_and_restore, session
from kernelviz.pipeline import NoDataYet, Prepared


#: The name of the last file that could not be used while no upload is in use: the page says so
#: instead of "No file uploaded yet", which would contradict the refusal above it.
REFUSED_KEY = "_upload_refused"


def handle_upload() -> None:
    """Read a newly uploaded file; a bad one leaves the previous upload in place and says which."""
    file = st.session_state.get("uploader")
    if file is None:
        return
    raw = file.getvalue()
    digest = hashlib.sha1(raw).hexdigest()
    # the name belongs to the upload as much as the bytes: the same bytes under a new name are a new upload
    if st.session_state.get("_upload_seen") == (digest, file.name):
        return
    st.session_state["_upload_seen"] = (digest, file.name)
    try:
        pipeline.check_upload(caches.uploaded(digest, file.name, raw), file.name)
    except Exception as err:  # noqa: BLE001 - any failure to read a user's file is shown, never raised
        previous = st.session_state.get("_upload")
        if previous is None:
            # what to do next is the page's note in place of the data (handed_in)
            st.session_state[REFUSED_KEY] = file.name
            session().flash(f"Could not use {file.name!r}: {err}")
        else:
            session().flash(f"Could not use {file.name!r}: {err} The views keep showing {previous[1]!r}.")
        return
    st.session_state.pop(REFUSED_KEY, None)
    st.session_state["_upload"] = (digest, file.name, raw)


def handed_in(values: dict) -> tuple[kv.data.Dataset | None, str | None]:
    """The data the pipeline cannot make from the settings (an upload, a drawing) and the
    identity of their content: (None, None) for generated and bundled data."""
    source = values["source"]
    if source in pipeline.BUILT_SOURCES:
        return None, None
    if source == "upload":
        if "_upload" not in st.session_state:
            refused = st.session_state.get(REFUSED_KEY)
            if refused is not None:
                raise NoDataYet(f"No data from a file yet: {refused!r} could not be used; choose another CSV or "
                                "LIBSVM file in the sidebar.")
            raise NoDataYet("No file uploaded yet: choose a CSV or LIBSVM file in the sidebar.")
        # named by the file's name too: the caches are shared by every session, and one
        # session uploading another's bytes under its own name must see its own name
        digest, upload_name, raw = st.session_state["_upload"]
        return caches.uploaded(digest, upload_name, raw), f"{digest}:{upload_name}"
    points, names = np.asarray(values["points"], dtype=float), values.get("class_names")
    # the names are part of the content: the same points named otherwise are other figures
    content = points.tobytes() + (repr(sorted(names.items())).encode() if names else b"")
    return pipeline.drawn_dataset(points, names), hashlib.sha1(content).hexdigest()


def load_prepared(values: dict) -> Prepared:
    """The current data, prepared; on failure the last data that worked, with an error on top."""
    try:
        raw, identity = handed_in(values)
        prep = caches.prepare(pipeline.DataSpec.from_settings(values, identity), raw)
    except NoDataYet as err:
        previous = session().last_good_data
        if previous is None or (values["source"] == "drawn" and values["view"] == "data"):
            raise
        st.info(message("{err} Meanwhile the views show the previous data ({name}).", err=err,
                        name=previous.name))
        return previous
    except ValueError as err:
        if not caches.previewing():
            fail_and_restore("data", data_settings(values), err)
        previous = session().last_good_data
        if previous is None:
            raise
        st.error(message("{err} Showing the last data that worked ({name}).", err=err,
                         name=previous.name))
        return previous
    if not caches.previewing():  # data on their way under the pointer are not the data that worked
        session().remember_good_data(prep)
        session().remember_good("data", data_settings(values))
    return prep


def sample_note(prep: Prepared) -> str:
    """Says, in plain words, that the views work on a sample of a large data set."""
    return (f"Showing a stratified sample of {len(prep.y):,} of {prep.n_total:,} points (each class keeps its "
            "share): the views build n × n matrices, which would not fit in memory for all of them. The command "
            "line (`kernelviz grid`) and `kv.evaluation` use every point.")


def current_partition(prep: Prepared, values: dict):
    """The partition of the settings on ``prep``; while a point is dragged, refitted from the previous
    frame's, and after its release in the order of the last frame's components (``kernelviz.ui.edits``)."""
    spec = pipeline.PartitionSpec.from_settings(values)
    try:
        with busy("Fitting the partition …"):
            part = caches.fit_partition(prep.key, spec, caches.backend_key(), prep, edits.partition_start(spec))
            part = edits.keep_partition(spec, part)
    except ValueError as err:
        if not caches.previewing():
            fail_and_restore("partition", pipeline.STAGES["partition"], err)
        raise
    session().remember_good("partition", pipeline.STAGES["partition"])
    return part
