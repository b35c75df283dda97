"""Grafice cu etichete în română, aceleași în toate capitolele.

- `grafic_variante`: variante ale aceleiași operații, una lângă alta (bare);
- `grafic_dimensiuni`: timp sau lățime de bandă în funcție de dimensiune, cu plafonul desenat;
- `grafic_rentabilitate`: timpul cumulat eager vs compilat și punctul în care compilarea
  s-a amortizat;
- `grafic_cronologie`: kernel-urile unei apelări pe axa timpului, câte un rând pe variantă;
- `grafic_latime_banda`: variante în GB/s, față de plafonul de copiere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import matplotlib.pyplot as plt
from matplotlib import ticker

from .cifre import cu_substantiv, format_numar, format_octeti, format_procent
from .masurare import Masuratoare, prag_rentabilitate

__all__ = [
    "grafic_variante",
    "grafic_dimensiuni",
    "grafic_rentabilitate",
    "grafic_cronologie",
    "grafic_latime_banda",
    "format_octeti",
    "grafic_kerneluri_grele",
    "formateaza_axe",
    "arata",
    "cale_ilustratie",
    "arata_ilustratie",
]


class _FormatorLiniar(ticker.ScalarFormatter):
    """Etichetele unei axe liniare: ca ale lui matplotlib, dar cu virgulă zecimală, mii grupate
    și fără notație științifică sau decalaj („1e6”, „+1,234e3”) deasupra axei."""

    def __init__(self):
        super().__init__(useOffset=False, useMathText=False)
        self.set_scientific(False)

    def __call__(self, x, pos=None):
        text = super().__call__(x, pos).replace("\N{MINUS SIGN}", "-")
        if not text:
            return text
        intreg, _, fractie = text.lstrip("-").partition(".")
        from .cifre import _cu_grupe

        return ("-" if text.startswith("-") else "") + _cu_grupe(intreg) + (f",{fractie}" if fractie else "")


class _FormatorLogaritmic(ticker.LogFormatter):
    """Etichetele unei axe logaritmice, ca numere obișnuite („1 000”, „0,01”), nu „10³”."""

    def _num_to_string(self, x, vmin, vmax):
        return format_numar(x)


def formateaza_axe(figura=None) -> None:
    """Pune etichetele în formatul cursului pe toate axele figurii (implicit, cea curentă):
    virgulă zecimală, mii grupate cu spațiu, fără notație științifică. Etichetele alese
    explicit (cu `set_xticks(..., etichete)` sau un formator propriu) rămân cum sunt."""
    figura = figura or plt.gcf()
    for ax in figura.get_axes():
        for axa in (ax.xaxis, ax.yaxis):
            logaritmica = axa.get_scale() in ("log", "symlog")
            if type(axa.get_major_formatter()) in (ticker.ScalarFormatter, ticker.LogFormatterSciNotation,
                                                   ticker.LogFormatterMathtext, ticker.LogFormatter):
                axa.set_major_formatter(_FormatorLogaritmic() if logaritmica else _FormatorLiniar())
            minor = axa.get_minor_formatter()
            if logaritmica and type(minor) in (ticker.LogFormatterSciNotation, ticker.LogFormatterMathtext,
                                               ticker.LogFormatter):
                formator = _FormatorLogaritmic(labelOnlyBase=minor.labelOnlyBase,
                                               minor_thresholds=minor.minor_thresholds)
                axa.set_minor_formatter(formator)


def arata(figura=None) -> None:
    """Afișează figura (implicit, cea curentă) cu etichetele în formatul cursului: folosește-o
    în locul lui `plt.show()`."""
    figura = figura or plt.gcf()
    formateaza_axe(figura)
    plt.show()


def grafic_variante(
    variante: Mapping[str, Masuratoare | float],
    titlu: str = "",
    unitate: str = "ms",
    ax=None,
    factor_fata_de_prima: bool = True,
    logaritmic: bool = False,
):
    """Bare orizontale, câte una pe variantă, cu mediana (și intervalul 20–80%) și, dacă
    `factor_fata_de_prima`, factorul față de prima variantă scris lângă fiecare bară.
    Valorile simple (float) sunt în `unitate`. `logaritmic` pune axa timpului pe scară
    logaritmică, pentru valori care diferă de sute de ori."""
    factor = {"s": 1.0, "ms": 1e3, "µs": 1e6}[unitate]
    nume = list(variante)
    medii, erori = [], [[], []]
    for n in nume:
        v = variante[n]
        if isinstance(v, Masuratoare):
            m = v.mediana_s * factor
            medii.append(m)
            erori[0].append(m - v.cuantila20_s * factor)
            erori[1].append(v.cuantila80_s * factor - m)
        else:
            medii.append(float(v))
            erori[0].append(0.0)
            erori[1].append(0.0)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.6 * len(nume) + 1.2))
    pozitii = range(len(nume))
    culori = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    ax.barh(pozitii, medii, xerr=erori, color=[culori[i % len(culori)] for i in pozitii], capsize=3)
    ax.set_yticks(list(pozitii), nume)
    ax.invert_yaxis()
    ax.set_xlabel(f"timp pe apel ({unitate}, mediana; mai puțin e mai bine)")
    referinta = medii[0]
    for i, m in enumerate(medii):
        text = f"  {format_numar(m)} {unitate}"
        if factor_fata_de_prima and i > 0 and m > 0:
            text += f"  ({format_numar(referinta / m, 2)}× față de prima)"
        ax.text(m + erori[1][i], i, text, va="center")
    maxim = max(m + e for m, e in zip(medii, erori[1]))
    if logaritmic:
        ax.set_xscale("log")
        ax.set_xlim(min(m for m in medii if m > 0) / 2, maxim * 20)
    else:
        ax.set_xlim(0, maxim * 1.8)
    if titlu:
        ax.set_title(titlu)
    formateaza_axe(ax.figure)
    ax.figure.tight_layout()
    return ax


def grafic_dimensiuni(
    dimensiuni_octeti: Sequence[float],
    serii: Mapping[str, Sequence[float]],
    marime: str = "GB/s",
    plafon: float | None = None,
    eticheta_plafon: str = "plafonul de copiere măsurat",
    titlu: str = "",
    ax=None,
    intervale: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
):
    """Una sau mai multe serii în funcție de dimensiunea datelor (axe logaritmice).

    `marime` este eticheta axei verticale („GB/s”, „ms” ...); `plafon`, dacă e dat, se
    desenează ca linie orizontală întreruptă — acoperișul pe care nu-l poți depăși.
    `intervale[nume] = (jos, sus)` desenează, în jurul seriei, banda împrăștierii măsurate.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    for nume, valori in serii.items():
        linie, = ax.plot(dimensiuni_octeti, valori, marker="o", label=nume)
        if intervale and nume in intervale:
            jos, sus = intervale[nume]
            ax.fill_between(dimensiuni_octeti, jos, sus, color=linie.get_color(), alpha=0.2, linewidth=0)
    if plafon is not None:
        ax.axhline(plafon, linestyle="--", color="black", linewidth=1, label=eticheta_plafon)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    pozitii = list(dimensiuni_octeti)
    ax.set_xticks(pozitii, [format_octeti(d) for d in pozitii], rotation=45)
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.yaxis.set_minor_formatter(ticker.LogFormatter(labelOnlyBase=False, minor_thresholds=(2, 0.5)))
    ax.set_xlabel("dimensiunea tensorului de intrare")
    ax.set_ylabel(marime)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend()
    if titlu:
        ax.set_title(titlu)
    formateaza_axe(ax.figure)
    ax.figure.tight_layout()
    return ax


def grafic_rentabilitate(
    timp_prima_s: float,
    timp_eager_s: float,
    timp_compilat_s: float,
    numar_apelari: int | None = None,
    titlu: str = "",
    ax=None,
):
    """Timpul total după n apelări, eager vs compilat, și apelarea de la care compilarea
    s-a amortizat (`prag_rentabilitate`). Întoarce (ax, prag)."""
    prag = prag_rentabilitate(timp_prima_s, timp_eager_s, timp_compilat_s)
    if numar_apelari is None:
        numar_apelari = max(10, int((prag or 10) * 2))
    n = list(range(1, numar_apelari + 1))
    eager = [k * timp_eager_s for k in n]
    compilat = [timp_prima_s + (k - 1) * timp_compilat_s for k in n]
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    ax.plot(n, eager, label="eager")
    ax.plot(n, compilat, label="compilat (primul apel include compilarea)")
    if prag is not None and prag <= numar_apelari:
        ax.axvline(prag, linestyle="--", color="gray")
        ax.annotate(
            f"se amortizează la apelul {prag}",
            xy=(prag, prag * timp_eager_s),
            xytext=(10, -30),
            textcoords="offset points",
            arrowprops=dict(arrowstyle="->"),
        )
    ax.set_xlabel("numărul de apeluri")
    ax.set_ylabel("timp total (s)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    if titlu:
        ax.set_title(titlu)
    formateaza_axe(ax.figure)
    ax.figure.tight_layout()
    return ax, prag


def grafic_cronologie(
    cronologii: Mapping[str, Sequence],
    titlu: str = "",
    ax=None,
):
    """Cronologia kernel-urilor, câte un rând pentru fiecare variantă („eager”, „compilat” ...).

    `cronologii` leagă numele variantei de lista ei de `masurare.EvenimentKernel`. Fiecare
    kernel e o bară de la începutul la sfârșitul lui; spațiul alb dintre bare e timp în care
    unitatea de calcul a stat, așteptând următorul kernel.
    """
    nume_variante = list(cronologii)
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 1.1 + 0.8 * len(nume_variante)))
    culori = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    sfarsit_maxim = max((e.sfarsit_us for ev in cronologii.values() for e in ev), default=1.0)
    for rand, nume in enumerate(reversed(nume_variante)):
        evenimente = cronologii[nume]
        for i, e in enumerate(evenimente):
            ax.broken_barh(
                [(e.inceput_us, max(e.durata_us, sfarsit_maxim * 0.002))],
                (rand - 0.35, 0.7),
                facecolors=culori[i % len(culori)],
                edgecolor="black",
                linewidth=0.5,
            )
            eticheta = e.nume if len(e.nume) <= 40 else e.nume[:38] + "…"
            latime_text = 0.0075 * len(eticheta) * sfarsit_maxim  # aproximativ, la fontsize 8
            urmatorul = evenimente[i + 1].inceput_us if i + 1 < len(evenimente) else sfarsit_maxim * 1.6
            if e.durata_us > latime_text:  # încape în bară
                ax.text(e.inceput_us + e.durata_us / 2, rand, eticheta, ha="center", va="center",
                        fontsize=8, color="white", clip_on=True)
            elif urmatorul - e.sfarsit_us > latime_text:  # încape în dreapta barei
                ax.text(e.sfarsit_us + 0.005 * sfarsit_maxim, rand, eticheta, ha="left", va="center", fontsize=8)
    ax.set_yticks(
        range(len(nume_variante)),
        [f"{n}\n({cu_substantiv(len(cronologii[n]), 'kernel', 'kernel-uri')})" for n in reversed(nume_variante)],
    )
    ax.set_xlim(0, sfarsit_maxim * 1.02)
    ax.set_ylim(-0.6, len(nume_variante) - 0.4)
    ax.set_xlabel("timp de la începutul primului kernel (µs)")
    ax.grid(True, axis="x", alpha=0.3)
    if titlu:
        ax.set_title(titlu)
    formateaza_axe(ax.figure)
    ax.figure.tight_layout()
    return ax


def grafic_latime_banda(
    valori: Mapping[str, float],
    plafon: float | None = None,
    titlu: str = "",
    ax=None,
    unitate: str = "GB/s",
    marime: str = "lățime de bandă utilă",
    eticheta_plafon: str = "plafonul de copiere măsurat",
    intervale: Mapping[str, tuple[float, float]] | None = None,
):
    """Bare orizontale de debit, câte una pe variantă, cu plafonul ca linie verticală
    întreruptă și procentul din plafon scris lângă fiecare bară. Implicit în GB/s, cu
    plafonul de copiere; pentru calcul, de exemplu, `unitate="TFLOP/s"`,
    `marime="debit de calcul"`, `eticheta_plafon="vârful produsului de matrice măsurat"`.
    `intervale[nume] = (jos, sus)` desenează împrăștierea măsurată a unei bare."""
    nume = list(valori)
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 0.55 * len(nume) + 1.3))
    culori = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    erori = None
    if intervale:
        erori = [
            [max(0.0, valori[n] - intervale[n][0]) if n in intervale else 0.0 for n in nume],
            [max(0.0, intervale[n][1] - valori[n]) if n in intervale else 0.0 for n in nume],
        ]
    ax.barh(range(len(nume)), [valori[n] for n in nume], xerr=erori, capsize=3,
            color=[culori[i % len(culori)] for i in range(len(nume))])
    ax.set_yticks(list(range(len(nume))), nume)
    ax.invert_yaxis()
    for i, n in enumerate(nume):
        text = f"  {format_numar(valori[n], 0)} {unitate}"
        if plafon:
            text += f" ({format_procent(valori[n] / plafon)} din plafon)"  # sub 1%, cu zecimale
        ax.text(valori[n], i, text, va="center")
    maxim = max([*valori.values(), plafon or 0])
    if plafon:
        ax.axvline(plafon, linestyle="--", color="black", linewidth=1, label=eticheta_plafon)
        ax.legend(loc="lower right", fontsize=8)
    ax.set_xlim(0, maxim * 1.45)
    ax.set_xlabel(f"{marime} ({unitate}; mai mult e mai bine)")
    if titlu:
        ax.set_title(titlu)
    formateaza_axe(ax.figure)
    ax.figure.tight_layout()
    return ax


def grafic_kerneluri_grele(timpi: Mapping[str, Mapping[str, float]], titlu: str = "cele mai grele kernel-uri"):
    """Câte un grafic de bare pentru fiecare variantă („eager”, „compilat”): timpul GPU pe pas
    al fiecărui kernel, adunat după nume (de exemplu `OcupareGPU.timp_pe_nume()`), cele mai
    grele sus. Întoarce figura."""
    fig, axe = plt.subplots(1, len(timpi), figsize=(6.5 * len(timpi), 4), squeeze=False)
    culori = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (ax, (nume, kerneluri)) in enumerate(zip(axe[0], timpi.items())):
        ax.barh(list(kerneluri), list(kerneluri.values()), color=culori[i % len(culori)])
        ax.invert_yaxis()
        ax.tick_params(axis="y", labelsize=7)
        ax.set_xlabel("timp pe pas (ms)")
        ax.set_title(f"{nume}: {titlu}")
    formateaza_axe(fig)
    fig.tight_layout()
    return fig


def cale_ilustratie(nume: str) -> Path:
    """Calea unei ilustrații a cursului din `assets/bucataria/` (desenele bucătăriei)."""
    return Path(__file__).resolve().parent.parent / "assets" / "bucataria" / nume


def arata_ilustratie(nume: str) -> None:
    """Afișează în notebook o ilustrație din `assets/bucataria/` (le desenează
    `curs_compilare.instructor.ilustratii`, cu `make ilustratii`). Dacă lipsește, de exemplu
    într-o copie incompletă a cursului, spune cum o redesenezi. Nu întoarce nimic, ca apelul de la
    sfârșitul unei celule să nu lase în urmă o valoare `Out[]`."""
    cale = cale_ilustratie(nume)
    if not cale.exists():
        print(f"Ilustrația {nume} lipsește din assets/bucataria/: o redesenezi cu `make ilustratii`.")
        return
    from IPython.display import Image, display

    display(Image(filename=str(cale)))
