"""Uneltele capitolului 04 care țin contabilitatea în afara celulelor: rezumatul costului
lansărilor, tabelele și graficele, propozițiile care diferă între GPU și procesor, memoria
măsurată pe GPU și cifrele înregistrate pentru raportul de referință (aceleași chei, unități și
descrieri ca atunci când erau scrise în celule). Pe o mașină fără GPU, funcțiile de memorie
se încearcă pe un `torch.cuda` înlocuit."""


import matplotlib

matplotlib.use("Agg")

import pytest
import torch

from curs_compilare import cifre
from curs_compilare.capitole import cap04_grafuri_cuda as grafuri_cuda
from curs_compilare.capitole.cap04_grafuri_cuda import CostLansari
from curs_compilare.masurare import Masuratoare, Raport
from curs_compilare.masurare_compilare import Compilari


def _masuratoare(secunde, runde=(), ceas="perete"):
    return Masuratoare(secunde, 0.9 * secunde, 1.1 * secunde, 100, "test", mediane_runde=tuple(runde), ceas=ceas)


def _raport(valoare, runde=5, **optiuni):
    return Raport(valoare, 0.9 * valoare, 1.1 * valoare, runde, **optiuni)


def test_rezumatul_costului_spune_ce_se_masoara_pe_fiecare_masina():
    cost = CostLansari(perete_s=320e-6, timp_kerneluri_s=64e-6, numar_kerneluri=32, ocupare_gpu=0.2)
    pe_gpu = grafuri_cuda.rezumat_cost_lansari(cost, are_gpu=True).splitlines()
    assert pe_gpu[0] == "32 de kernel-uri pe apel"
    assert pe_gpu[1].startswith("timpul unui apel (timp real):") and pe_gpu[1].endswith("pe kernel")
    assert "320 µs" in pe_gpu[1] and "10 µs" in pe_gpu[1] and "64 µs" in pe_gpu[2] and "2 µs" in pe_gpu[2]
    assert pe_gpu[3] == "GPU-ul a lucrat 20% din timpul unei bucle de apeluri"
    pe_cpu = grafuri_cuda.rezumat_cost_lansari(cost, are_gpu=False).splitlines()
    assert pe_cpu[:3] == pe_gpu[:3] and pe_cpu[3].startswith("(pe CPU, durata operațiilor vine din profiler")


def test_tabelul_primelor_apeluri_are_fiecare_repetare_si_apelurile_2_si_3():
    compilari = Compilari(
        timpi={"modul implicit": _masuratoare(2.0, (1.9, 2.1)), "reduce-overhead": _masuratoare(3.0, (2.8, 3.2))},
        functii={},
        apelari_urmatoare={"modul implicit": [0.001, 0.0005], "reduce-overhead": [0.02, 0.0003]},
    )
    randuri = grafuri_cuda.tabel_primele_apeluri(compilari).splitlines()
    assert len(randuri) == 2
    assert randuri[0].startswith("modul implicit   primul apel (compilarea): 2 s (de 2 ori: 1,9 s, 2,1 s); apelurile 2 și 3: ")
    assert randuri[1].startswith("reduce-overhead  primul apel (compilarea): 3 s (de 2 ori: 2,8 s, 3,2 s)")
    assert cifre.probleme_de_format("\n".join(randuri)) == []


def test_concluzia_modului_implicit_spune_cauza_doar_pe_gpu():
    pe_gpu = grafuri_cuda.concluzie_modul_implicit(_raport(0.8), are_gpu=True)
    assert pe_gpu.startswith("Modul implicit e mai lent decât eager") and "produsele de matrice rămân apeluri de bibliotecă" in pe_gpu
    pe_cpu = grafuri_cuda.concluzie_modul_implicit(_raport(0.8), are_gpu=False)
    assert pe_cpu.startswith("Modul implicit e mai lent decât eager") and "produsele de matrice" not in pe_cpu
    assert grafuri_cuda.concluzie_modul_implicit(_raport(2.0), are_gpu=True).startswith("Modul implicit e de 2 ori mai rapid")


def test_nota_reduce_overhead_pe_cpu_in_zgomot_si_in_afara_lui():
    la_fel = grafuri_cuda.nota_reduce_overhead_pe_cpu(Raport(1.01, 0.97, 1.05, 5))
    assert "durează la fel (raportul lor: 1,01×; în 5 runde: între 0,97× și 1,05×)." in la_fel
    diferit = grafuri_cuda.nota_reduce_overhead_pe_cpu(Raport(1.5, 1.4, 1.6, 5))
    assert "dar aici ies diferit (raportul lor: 1,5×" in diferit and "repetă măsurarea." in diferit
    for text in (la_fel, diferit):
        assert text.startswith('Pe CPU, "reduce-overhead" și modul implicit rulează același cod compilat')
        assert text.endswith("Ce diferă față de eager vine din codul generat de Inductor, nu dintr-un graf CUDA.")


def test_tabelul_si_graficul_loturilor():
    loturi = [1, 1024]
    latente = {"eager": [_masuratoare(100e-6), _masuratoare(1e-3)], "reduce-overhead": [_masuratoare(25e-6), _masuratoare(1e-3)]}
    rapoarte = [_raport(4.0, jos=3.8, sus=4.2), _raport(1.0, jos=0.95, sus=1.05)]
    randuri = grafuri_cuda.tabel_loturi(loturi, latente, rapoarte).splitlines()
    assert randuri[0].split() == ["lot", "eager", "reduce-overhead", "accelerare", "runde", "(20–80%)"]
    assert randuri[1].split() == ["1", "100", "µs", "25", "µs", "4×", "3,8×", "–", "4,2×"]
    assert randuri[2].split()[:2] == ["1", "024"]
    figura = grafuri_cuda.grafic_loturi(loturi, latente, rapoarte)
    ax_timp, ax_acc = figura.axes
    assert [l.get_label() for l in ax_timp.get_lines()] == ["eager", "reduce-overhead"]
    assert list(ax_timp.get_lines()[1].get_ydata()) == pytest.approx([25.0, 1000.0])
    assert list(ax_acc.get_lines()[0].get_ydata()) == [4.0, 1.0]


def test_loturile_fara_castig():
    rapoarte = [_raport(a) for a in (5.0, 1.05, 1.3, 0.9)]
    assert grafuri_cuda.loturi_fara_castig([1, 8, 64, 512], rapoarte, 1.1) == [8, 512]
    assert grafuri_cuda.loturi_fara_castig([1, 8, 64, 512], rapoarte, 0.5) == []


def test_propozitiile_loturilor_incep_cu_verdictul_primului_lot():
    text = grafuri_cuda.propozitii_loturi([1, 8, 64], [_raport(5.0), _raport(2.0), _raport(1.05)], 1.1, are_gpu=True)
    randuri = text.splitlines()
    assert randuri[0].startswith('La lotul 1, "reduce-overhead" e de 5 ori mai rapid decât eager')
    assert randuri[1] == "Câștigul e de cel puțin 1,1× de la lotul 1 până la lotul 8 și scade sub 1,1× prima dată la lotul 64."
    assert len(randuri) == 2


def test_propozitiile_loturilor_spun_unde_castigul_urca_din_nou():
    rapoarte = [_raport(a) for a in (5.0, 1.0, 1.3, 0.9, 1.2)]
    randuri = grafuri_cuda.propozitii_loturi([1, 8, 64, 512, 4096], rapoarte, 1.1, are_gpu=False).splitlines()
    assert randuri[1] == "Câștigul e de cel puțin 1,1× doar la lotul 1 și scade sub 1,1× prima dată la lotul 8."
    assert randuri[2] == ("La loturile 64, 4 096, câștigul urcă din nou peste prag: "
                          "măsurătorile au zgomot, iar accelerarea nu scade neapărat lot după lot.")


class _CudaInlocuit:
    """Ce folosesc uneltele de memorie din `torch.cuda`, cu valori alese de test."""

    def __init__(self):
        self.apeluri = []
        self.alocat = 100 * 2**20
        self.varf = self.alocat

    def synchronize(self):
        self.apeluri.append("synchronize")

    def empty_cache(self):
        self.apeluri.append("empty_cache")

    def memory_reserved(self):
        return 512 * 2**20 if "empty_cache" in self.apeluri else 900 * 2**20

    def reset_peak_memory_stats(self):
        self.apeluri.append("reset")
        self.varf = self.alocat

    def memory_allocated(self):
        return self.alocat

    def max_memory_allocated(self):
        return self.varf


def test_memoria_rezervata_se_citeste_dupa_empty_cache(monkeypatch):
    cuda = _CudaInlocuit()
    for nume in ("synchronize", "empty_cache", "memory_reserved"):
        monkeypatch.setattr(torch.cuda, nume, getattr(cuda, nume))
    assert grafuri_cuda.memorie_rezervata_mib() == 512.0
    assert cuda.apeluri == ["synchronize", "empty_cache"]


def test_varful_unui_apel_e_fata_de_memoria_de_dinainte(monkeypatch):
    cuda = _CudaInlocuit()
    for nume in ("synchronize", "reset_peak_memory_stats", "memory_allocated", "max_memory_allocated"):
        monkeypatch.setattr(torch.cuda, nume, getattr(cuda, nume))
    cuda.varf = 10 * 2**30  # un vârf vechi, de dinaintea apelului: nu trebuie să conteze

    def apel(x):
        assert cuda.apeluri[-1] == "reset"
        cuda.varf = cuda.alocat + x * 2**20

    assert grafuri_cuda.varf_memorie_mib(apel, 64) == 64.0
    assert cuda.apeluri == ["synchronize", "reset", "synchronize"]


def test_tabelul_si_graficul_etapelor_memoriei():
    etape = {"început": 10.0, "+ graful lotului 8192": 170.0, "după torch._dynamo.reset()": 12.0}
    randuri = grafuri_cuda.tabel_etape_memorie(etape).splitlines()
    assert randuri[0].split() == ["după", "rezervat"]
    assert randuri[2].startswith("+ graful lotului 8192") and randuri[2].endswith("170 MiB")
    figura = grafuri_cuda.grafic_etape_memorie(etape)
    ax = figura.axes[0]
    assert [bara.get_width() for bara in ax.patches] == [10.0, 170.0, 12.0]
    assert ax.yaxis_inverted()


@pytest.mark.parametrize("dupa_toate, asteptat", [
    (160.0, "Grafurile următoare, mai mici, n-au cerut memorie nouă"), (176.0, "Grafurile următoare, mai mici, n-au cerut"),
    (177.0, "Grafurile următoare au cerut memorie nouă"), (300.0, "Grafurile următoare au cerut memorie nouă"),
])
def test_concluziile_memoriei(dupa_toate, asteptat):
    text = grafuri_cuda.concluzii_memorie({8192: 128.0, 4096: 64.0, 2048: 32.0}, 160.0, dupa_toate, 150.0, 3)
    randuri = text.splitlines()
    assert randuri[0] == ""  # un rând gol între graficul etapelor și concluzii
    assert randuri[1] == "Vârfurile eager ale celor trei loturi: 128 MiB, 64 MiB, 32 MiB (suma: 224 MiB); intrarea lotului 8192: 32 MiB"
    assert randuri[2] == f"Grafurile țin 160 MiB după primul graf și {cifre.cu_unitate(dupa_toate, 'MiB', 0)} după toate cele 3 grafuri."
    assert randuri[3].startswith(asteptat)
    assert randuri[4] == "Memorie ținută de grafuri până la torch._dynamo.reset(): 150 MiB"


def test_inregistrarile_au_cheile_unitatile_si_descrierile_capitolului(cifre_notate):
    cost = CostLansari(perete_s=320e-6, timp_kerneluri_s=64e-6, numar_kerneluri=32, ocupare_gpu=0.2)
    compilari = Compilari(timpi={"modul implicit": _masuratoare(2.0), "reduce-overhead": _masuratoare(3.0)},
                          functii={}, apelari_urmatoare={})
    rezultate = [
        grafuri_cuda.inregistreaza_costul_eager(cost, 16),
        grafuri_cuda.inregistreaza_graful_manual(_masuratoare(40e-6, ceas="gpu"), _raport(8.0)),
        grafuri_cuda.inregistreaza_lotul_1(_masuratoare(50e-6), _masuratoare(300e-6), _raport(6.0), compilari, 16),
        grafuri_cuda.inregistreaza_loturile([1, 8, 64], [_raport(5.0), _raport(1.05), _raport(1.0)], 1.1, 16, 1024),
        grafuri_cuda.inregistreaza_memoria(150.0, 160.0, 128.0),
    ]
    assert rezultate == [None] * len(rezultate)
    cifre_scrise = {c["cheie"]: (pytest.approx(c["valoare"]), c["unitate"], c["descriere"], c["depinde_de_procesor"])
                    for c in cifre_notate()}
    assert cifre_scrise == {
        "04.eager_perete_us": (320.0, "µs", "stiva de 16 straturi la lot 1, eager: timpul unui apel", True),
        "04.eager_kerneluri_us": (64.0, "µs", "stiva de 16 straturi la lot 1, eager: timpul kernel-urilor pe GPU", False),
        "04.eager_ocupare": (20.0, "%", "ocuparea GPU-ului la lot 1, eager", True),
        "04.graf_manual_perete_us": (40.0, "µs", "graful CUDA capturat de mână, lot 1: timpul unui apel", False),
        "04.graf_manual_accelerare": (8.0, "×", "graful CUDA capturat de mână față de eager, lot 1", False),
        "04.reduce_overhead_lot1_us": (50.0, "µs", "reduce-overhead, lot 1: timpul unui apel", True),
        "04.reduce_overhead_lot1_accelerare": (6.0, "×", "reduce-overhead față de eager, lot 1", False),
        "04.implicit_lot1_us": (300.0, "µs", "compilat în modul implicit, lot 1: timpul unui apel", True),
        "04.prima_apelare_modul_implicit_s": (2.0, "s", "stiva de 16 straturi, modul implicit: primul apel (cache gol)", True),
        "04.prima_apelare_reduce-overhead_s": (3.0, "s", "stiva de 16 straturi, reduce-overhead: primul apel (cache gol)", True),
        "04.loturi_accelerare_lot1": (5.0, "×", "reduce-overhead față de eager, stiva 16×1024, lot 1", False),
        "04.loturi_accelerare_lot_maxim": (1.0, "×", "reduce-overhead față de eager, lot 64", False),
        "04.loturi_primul_fara_castig": (8.0, "exemple", "primul lot la care reduce-overhead câștigă mai puțin de 1,1×", True),
        "04.memorie_grafuri_mib": (150.0, "MiB", "memoria rezervată ținută de trei grafuri CUDA (loturi 8192, 4096, 2048, stiva 16×1024)", False),
        "04.memorie_primul_graf_mib": (160.0, "MiB", "memoria ținută de grafuri după primul graf (lot 8192)", False),
        "04.memorie_varf_eager_8192_mib": (128.0, "MiB", "vârful de memorie al lotului 8192 rulat eager", False),
    }


@pytest.mark.parametrize("accelerari", [(5.0, 2.0, 1.5), (1.0, 2.0, 1.5)], ids=["castig-peste-tot", "fara-castig-de-la-inceput"])
def test_primul_lot_fara_castig_se_inregistreaza_doar_dupa_un_lot_cu_castig(cifre_notate, accelerari):
    grafuri_cuda.inregistreaza_loturile([1, 8, 64], [_raport(a) for a in accelerari], 1.1, 16, 1024)
    chei = [c["cheie"] for c in cifre_notate()]
    assert chei == ["04.loturi_accelerare_lot1", "04.loturi_accelerare_lot_maxim"]
