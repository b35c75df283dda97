"""Desenele bucătăriei cursului, făcute cu matplotlib, ca să poată fi redesenate oricând.

Bucătăria (vezi ghidul de stil): **cămara** e memoria GPU-ului, **blatul și tigaia** sunt
registrele, un **drum la cămară** înseamnă o citire sau o scriere a unui tensor întreg.

- `deseneaza_bucataria("eager")`: bucătarul care aduce fiecare ingredient separat și duce
  fiecare preparat intermediar înapoi în cămară (un kernel pe operație);
- `deseneaza_bucataria("fuziune")`: un singur drum, totul gătit într-o tigaie (un kernel);
- `deseneaza_ospatarul()`: ospătarul (procesorul) care duce comenzile la bucătărie (GPU) una
  câte una, față de meniul întreg predat o singură dată și reluat (CUDA Graphs).

Imaginile din `assets/bucataria/` se regenerează cu `make ilustratii`
(adică `python -m curs_compilare.instructor.ilustratii`); notebook-urile le arată cu
`grafice.arata_ilustratie(...)`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

if __name__ == "__main__":  # din linia de comandă nu avem nevoie de fereastră
    matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib import patches

from ..grafice import cale_ilustratie

__all__ = [
    "OPERATII_LANT",
    "deseneaza_bucataria",
    "deseneaza_comparatia",
    "deseneaza_ospatarul",
    "regenereaza",
    "ILUSTRATII",
]

#: Operațiile lanțului `(x * 2 + 1).relu() * 3`, așa cum apar pe desen.
OPERATII_LANT = ("× 2", "+ 1", "relu", "× 3")

#: Fișierele din `assets/bucataria/` și funcția care desenează fiecare.
ILUSTRATII = {
    "eager.png": lambda: deseneaza_bucataria("eager"),
    "fuziune.png": lambda: deseneaza_bucataria("fuziune"),
    "comparatie.png": lambda: deseneaza_comparatia(),
    "ospatarul.png": lambda: deseneaza_ospatarul(),
}

_CULOARE_CITIRE = "#1f77b4"
_CULOARE_SCRIERE = "#d62728"
_LEMN = "#8c5a2b"
_BLAT = "#d9c3a5"


def _camara(ax, borcane: list[str]) -> dict[str, tuple[float, float]]:
    """Cămara cu rafturi, câte un borcan pe raft; întoarce punctul de plecare al săgeților
    pentru fiecare borcan (marginea lui dreaptă)."""
    ax.add_patch(patches.FancyBboxPatch((0.3, 0.4), 2.8, 4.95, boxstyle="round,pad=0.05",
                                        facecolor="#f3e9dc", edgecolor=_LEMN, linewidth=2.5))
    ax.text(1.7, 5.95, "CĂMARA", ha="center", va="bottom", fontsize=13, weight="bold", color=_LEMN)
    ax.text(1.7, 5.5, "memoria GPU (HBM)", ha="center", va="bottom", fontsize=9, color=_LEMN)
    rafturi = [4.4, 3.4, 2.4, 1.4, 0.45]
    for y in rafturi:
        ax.plot([0.35, 3.05], [y, y], color=_LEMN, linewidth=3, solid_capstyle="butt")
    pozitii = {}
    for nume, y in zip(borcane, rafturi):
        x = 2.2
        ax.add_patch(patches.FancyBboxPatch((x - 0.3, y + 0.06), 0.6, 0.7, boxstyle="round,pad=0.04",
                                            facecolor="#fffaf0", edgecolor="#555", linewidth=1.2))
        ax.add_patch(patches.Rectangle((x - 0.32, y + 0.76), 0.64, 0.12, facecolor="#b5651d",
                                       edgecolor="#555", linewidth=1))
        ax.text(x, y + 0.4, nume, ha="center", va="center", fontsize=11, family="monospace")
        pozitii[nume] = (x + 0.38, y + 0.4)
    return pozitii


def _blat_si_bucatar(ax, text_tigaie: str) -> tuple[float, float]:
    """Blatul cu tigaia și bucătarul; întoarce punctul în care ajung săgețile."""
    ax.add_patch(patches.Rectangle((6.4, 0.4), 3.3, 1.5, facecolor=_BLAT, edgecolor=_LEMN, linewidth=2))
    ax.text(8.05, 0.55, "BLATUL și TIGAIA: registrele", ha="center", va="bottom", fontsize=9, color=_LEMN)
    ax.text(8.05, 1.0, text_tigaie, ha="center", va="center", fontsize=10, weight="bold")
    # tigaia
    ax.add_patch(patches.Ellipse((7.4, 1.62), 1.6, 0.42, facecolor="#444", edgecolor="black"))
    ax.add_patch(patches.Ellipse((7.4, 1.66), 1.3, 0.27, facecolor="#777", edgecolor="none"))
    ax.plot([8.2, 8.9], [1.62, 1.55], color="#222", linewidth=5, solid_capstyle="round")
    # bucătarul: cap, bonetă, corp, o mână spre tigaie
    ax.add_patch(patches.Circle((9.0, 3.45), 0.33, facecolor="#f1c27d", edgecolor="black"))
    ax.add_patch(patches.Rectangle((8.72, 3.75), 0.56, 0.35, facecolor="white", edgecolor="black"))
    ax.add_patch(patches.Ellipse((9.0, 4.2), 0.8, 0.35, facecolor="white", edgecolor="black"))
    ax.add_patch(patches.Polygon([(8.55, 1.95), (9.45, 1.95), (9.2, 3.1), (8.8, 3.1)], closed=True,
                                 facecolor="white", edgecolor="black"))
    ax.plot([8.75, 8.3], [2.8, 2.05], color="black", linewidth=1.5)
    ax.text(9.0, 4.5, "bucătarul\n(GPU-ul)", ha="center", va="bottom", fontsize=9)
    return (6.5, 2.3)


def _sageata(ax, start, stop, culoare, curbura, eticheta=None):
    ax.add_patch(patches.FancyArrowPatch(start, stop, connectionstyle=f"arc3,rad={curbura}",
                                         arrowstyle="-|>", mutation_scale=14, color=culoare,
                                         linewidth=1.6, shrinkA=2, shrinkB=2))
    if eticheta:
        # eticheta stă pe curbă: arc3 e o curbă Bézier pătratică cu punctul de control
        # mijloc + curbura × (dy, −dx)
        dx, dy = stop[0] - start[0], stop[1] - start[1]
        control = ((start[0] + stop[0]) / 2 + curbura * dy, (start[1] + stop[1]) / 2 - curbura * dx)
        t = 0.45
        x = (1 - t) ** 2 * start[0] + 2 * t * (1 - t) * control[0] + t**2 * stop[0]
        y = (1 - t) ** 2 * start[1] + 2 * t * (1 - t) * control[1] + t**2 * stop[1]
        ax.text(x, y, eticheta, ha="center", va="center", fontsize=8.5, color=culoare,
                bbox=dict(boxstyle="circle,pad=0.2", facecolor="white", edgecolor=culoare))


def deseneaza_bucataria(varianta: str, ax=None):
    """Desenează bucătăria pentru lanțul `(x * 2 + 1).relu() * 3`.

    `varianta` e „eager” (4 kernel-uri, 8 drumuri la cămară) sau „fuziune” (1 kernel,
    2 drumuri). Întoarce axa desenată.
    """
    if varianta not in ("eager", "fuziune"):
        raise ValueError("varianta trebuie să fie „eager” sau „fuziune”")
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 5.6))
    ax.set_xlim(0, 10)
    ax.set_ylim(-0.9, 6.5)
    ax.set_aspect("equal")
    ax.axis("off")

    if varianta == "eager":
        borcane = ["x", "t1", "t2", "t3", "y"]
        pozitii = _camara(ax, borcane)
        tinta = _blat_si_bucatar(ax, "o operație pe drum")
        pasi = []
        for i, operatie in enumerate(OPERATII_LANT):
            intrare, iesire = borcane[i], borcane[i + 1]
            sosire = (tinta[0], tinta[1] + 0.9 - 0.3 * i)
            _sageata(ax, pozitii[intrare], sosire, _CULOARE_CITIRE, 0.0, str(2 * i + 1))
            _sageata(ax, (sosire[0], sosire[1] - 0.12), pozitii[iesire], _CULOARE_SCRIERE, 0.18, str(2 * i + 2))
            calcul = f"relu({intrare})" if operatie == "relu" else f"{intrare} {operatie}"
            pasi.append(f"{2 * i + 1}: ia {intrare:<2}   {2 * i + 2}: pune {iesire} = {calcul}")
        ax.text(3.35, 6.35, "\n".join(pasi), ha="left", va="top", fontsize=8.5, family="monospace",
                bbox=dict(boxstyle="round,pad=0.3", facecolor="white", edgecolor="#999"))
        titlu = "Eager: un drum la cămară pentru fiecare ingredient"
        subtitlu = "4 kernel-uri · 8 drumuri: 4 citiri + 4 scrieri · t1, t2, t3 fac drumul dus-întors"
    else:
        borcane = ["x", "y"]
        pozitii = _camara(ax, borcane)
        tinta = _blat_si_bucatar(ax, " → ".join(OPERATII_LANT))
        _sageata(ax, pozitii["x"], (tinta[0], tinta[1] + 0.5), _CULOARE_CITIRE, 0.0, "1")
        _sageata(ax, (tinta[0], tinta[1] + 0.2), pozitii["y"], _CULOARE_SCRIERE, 0.15, "2")
        ax.text(3.35, 6.35, "1: ia x\n2: pune y = relu(x × 2 + 1) × 3", ha="left", va="top", fontsize=8.5,
                family="monospace", bbox=dict(boxstyle="round,pad=0.3", facecolor="white", edgecolor="#999"))
        titlu = "Fuziune: un singur drum, totul într-o tigaie"
        subtitlu = "1 kernel · 2 drumuri: 1 citire + 1 scriere · rezultatele intermediare rămân în registre"

    ax.text(5.0, -0.3, subtitlu, ha="center", va="center", fontsize=9.5)
    ax.plot([], [], color=_CULOARE_CITIRE, linewidth=2, label="citire din memorie")
    ax.plot([], [], color=_CULOARE_SCRIERE, linewidth=2, label="scriere în memorie")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, -0.06), ncol=2, frameon=False, fontsize=9)
    ax.set_title(titlu, fontsize=13)
    return ax


def deseneaza_comparatia():
    """Cele două bucătării una lângă alta. Întoarce figura."""
    figura, (stanga, dreapta) = plt.subplots(1, 2, figsize=(15, 5.4))
    deseneaza_bucataria("eager", stanga)
    deseneaza_bucataria("fuziune", dreapta)
    figura.tight_layout()
    return figura


def _rand_cronologie(ax, y, blocuri, culoare, eticheta_bloc=None):
    for inceput, durata in blocuri:
        ax.add_patch(patches.FancyBboxPatch((inceput, y - 0.28), durata, 0.56, boxstyle="round,pad=0.02",
                                            facecolor=culoare, edgecolor="black", linewidth=0.8))
        if eticheta_bloc:
            ax.text(inceput + durata / 2, y, eticheta_bloc, ha="center", va="center", fontsize=8)


def deseneaza_ospatarul():
    """Ospătarul și bucătăria, pe axa timpului. Sus: fără grafuri CUDA, ospătarul (procesorul)
    duce fiecare comandă (lansare de kernel) separat, iar bucătăria (GPU-ul) termină fiecare fel
    mai repede decât sosește următoarea comandă și stă. Jos: cu grafuri CUDA, meniul întreg e
    predat o dată (o reluare), iar felurile se gătesc unul după altul, fără pauze.
    Întoarce figura."""
    numar = 6
    lansare, gatit = 1.0, 0.35
    figura, (sus, jos) = plt.subplots(2, 1, figsize=(11, 4.6), sharex=True)
    # fără grafuri: fiecare lansare durează `lansare`, fiecare kernel `gatit`, după lansarea lui
    lansari = [(i * lansare, lansare * 0.9) for i in range(numar)]
    kerneluri = [((i + 0.9) * lansare + 0.05, gatit) for i in range(numar)]
    _rand_cronologie(sus, 1, lansari, "#fbe3b0", "comandă")
    _rand_cronologie(sus, 0, kerneluri, "#9fd39b", "fel")
    for (inceput, durata), (k_inceput, _) in zip(lansari, kerneluri):
        _sageata(sus, (inceput + durata * 0.8, 0.72), (k_inceput + 0.05, 0.3), "#555555", 0.0)
    sus.set_title("Fără grafuri CUDA: ospătarul duce comenzile una câte una, bucătăria așteaptă", fontsize=11, loc="left")
    sfarsit_eager = kerneluri[-1][0] + gatit
    sus.annotate("", xy=(sfarsit_eager, -0.6), xytext=(0, -0.6),
                 arrowprops=dict(arrowstyle="<->", color="#d62728"))
    sus.text(sfarsit_eager / 2, -0.85, "timpul unui apel", ha="center", va="top", color="#d62728", fontsize=9)
    # cu grafuri: o singură „comandă” (reluarea), apoi felurile unul după altul
    reluare = (0.0, lansare * 0.9)
    _rand_cronologie(jos, 1, [reluare], "#fbe3b0", "meniul întreg")
    inceput = reluare[1] + 0.05
    _rand_cronologie(jos, 0, [(inceput + i * (gatit + 0.03), gatit) for i in range(numar)], "#9fd39b")
    _sageata(jos, (reluare[1] * 0.8, 0.72), (inceput + 0.05, 0.3), "#555555", 0.0)
    sfarsit_graf = inceput + numar * (gatit + 0.03)
    jos.annotate("", xy=(sfarsit_graf, -0.6), xytext=(0, -0.6), arrowprops=dict(arrowstyle="<->", color="#2ca02c"))
    jos.text(sfarsit_graf / 2, -0.85, "timpul unui apel", ha="center", va="top", color="#2ca02c", fontsize=9)
    jos.set_title("Cu grafuri CUDA: meniul e predat o singură dată și reluat", fontsize=11, loc="left")
    for ax in (sus, jos):
        ax.set_yticks([0, 1], ["bucătăria\n(GPU)", "ospătarul\n(CPU)"])
        ax.set_ylim(-1.4, 1.6)
        ax.set_xlim(-0.2, numar * lansare + 0.6)
        ax.tick_params(axis="x", bottom=False, labelbottom=False)
        for latura in ("top", "right", "bottom"):
            ax.spines[latura].set_visible(False)
    jos.set_xlabel("timp →")
    figura.tight_layout()
    return figura


def _figura(nume: str):
    """Desenează ilustrația `nume` și întoarce figura matplotlib."""
    rezultat = ILUSTRATII[nume]()
    return rezultat if isinstance(rezultat, plt.Figure) else rezultat.figure


def regenereaza(director: Path | str | None = None) -> list[Path]:
    """Redesenează toate ilustrațiile în `director` (implicit `assets/bucataria/`)."""
    director = Path(director) if director is not None else cale_ilustratie("")
    director.mkdir(parents=True, exist_ok=True)
    scrise = []
    for nume in ILUSTRATII:
        figura = _figura(nume)
        cale = director / nume
        # fără metadate variabile, ca aceeași versiune de matplotlib să dea același fișier
        figura.savefig(cale, dpi=110, bbox_inches="tight", metadata={"Software": None})
        plt.close(figura)
        scrise.append(cale)
    return scrise


if __name__ == "__main__":
    destinatie = sys.argv[1] if len(sys.argv) > 1 else None
    for cale in regenereaza(destinatie):
        print(f"scris: {cale}")
