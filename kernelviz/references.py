"""The four papers kernelviz implements: one registry, cited by title everywhere (app, README, reports).

Code comments refer to a paper by the key used here (``"ckrbf"``, ``"rwm"``, ``"mcpm"``, ``"cksvmnda"``)
and to the formulas by their section in ``docs/MATH.md``.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Paper:
    key: str
    authors: str
    title: str
    venue: str
    year: int
    url: str  # only where the copy we worked from names it
    contributes: str

    def citation(self) -> str:
        """Authors, title, venue, year: as a person would cite it."""
        return f"{self.authors}. {self.title}. {self.venue}, {self.year}."


PAPERS = {
    p.key: p
    for p in (
        Paper(
            key="ckrbf",
            authors="W. M. Czarnecki and J. Tabor",
            title="Cluster based RBF kernel for support vector machines",
            venue="arXiv preprint",
            year=2014,
            url="",
            contributes="CkRBF kernel, Mahalanobis RBF, mkRBF, the P_f(α) curve and its AUC",
        ),
        Paper(
            key="rwm",
            authors="T. Reitmaier and B. Sick",
            title="The responsibility weighted Mahalanobis kernel for semi-supervised training of support "
                  "vector machines for classification",
            venue="Information Sciences 323, 179–198",
            year=2015,
            url="",
            contributes="RWM and GMM-distance kernels, level curves around a point, the semi-supervised "
                        "protocol, the LapSVM comparison, the Keerthi–Lin path",
        ),
        Paper(
            key="mcpm",
            authors="H. Yang, K. Huang, I. King and M. R. Lyu",
            title="Efficient minimax clustering probability machine by generalized probability product kernel",
            venue="International Joint Conference on Neural Networks (IJCNN)",
            year=2008,
            url="",
            contributes="LPPK and RBF-PPK between Gaussians, SCM, MPM and MCPM with the worst-case bound α",
        ),
        Paper(
            key="cksvmnda",
            authors="R. Ksantini and R. Gharbi",
            title="A novel kernelized classifier based on the combination of partially global and local "
                  "characteristics",
            venue="LWA 2015 Workshops (KDML), CEUR-WS Vol. 1458",
            year=2015,
            url="https://ceur-ws.org/Vol-1458/E25_CRC74_Ksantini.pdf",
            contributes="KSVM, KFD, KNDA and their combination CKSVMNDA",
        ),
    )
}
