"""Uneltele capitolului 10 (FlexAttention): dimensiunile după mașină, masca pe blocuri citită
corect (comparată cu masca densă), perechile utile numărate exact, alegerea dispozitivului pe un
GPU vechi (cu eșecurile simulate: memorie partajată, NaN, blocaj), atenția naivă care nu mai
încape, recompilările numărate, pasul înapoi pe procesor și modelul cursului cu FlexAttention."""

import time
import types

import matplotlib
import pytest
import torch

matplotlib.use("Agg")

from curs_compilare.capitole import cap10_flex as flex10  # noqa: E402
from curs_compilare.masurare import Masuratoare  # noqa: E402
from curs_compilare.modele import ConfiguratieTransformer, ReteaTransformer  # noqa: E402

pytestmark = pytest.mark.skipif(flex10.flex_attention is None, reason="torch fără FlexAttention")


def _cauzala(b, h, q, kv):
    return q >= kv


def _fereastra(latime):
    def masca(b, h, q, kv):
        return (q >= kv) & (q - kv < latime)
    return masca


def _documente(lungimi):
    ids = torch.repeat_interleave(torch.arange(len(lungimi)), torch.tensor(lungimi))

    def masca(b, h, q, kv):
        return (ids[q] == ids[kv]) & (q >= kv)
    return masca


def _mediu(**campuri):
    implicite = dict(are_gpu=True, capabilitate=(7, 5), bf16_nativ=False, nume_gpu="Tesla T4", e_simulat=False,
                     gpu_simulat=None)
    return types.SimpleNamespace(**{**implicite, **campuri})


def test_marimile_dupa_dispozitiv():
    gpu, cpu = flex10.marimi_pentru("cuda", bf16=True), flex10.marimi_pentru("cpu")
    assert cpu.tip == torch.float32 and max(cpu.lungimi) <= 1024
    assert gpu.tip in (torch.bfloat16,) and flex10.marimi_pentru("cuda", bf16=False).tip == torch.float16
    assert cpu.lungime in cpu.lungimi and "fereastra" in cpu.descriere()
    q, k, v = flex10.qkv(cpu, 64, "cpu", cere_grad=True)
    assert q.shape == (cpu.lot, cpu.capete, 64, cpu.dim_cap) and q.requires_grad and not torch.equal(q, k)


@pytest.mark.parametrize("lungime", [100, 256, 300])
def test_perechile_permise_sunt_cele_ale_mastii_dense(lungime):
    for mask_mod in (_cauzala, _fereastra(1), _fereastra(64), _fereastra(1000), _documente([lungime // 3, lungime - lungime // 3])):
        densa = flex10.create_mask(mask_mod, 1, 1, lungime, lungime, device="cpu")
        assert flex10.perechi_permise(mask_mod, lungime, rand_bloc=70) == int(densa.sum())
    assert flex10.perechi_permise(_cauzala, lungime) == lungime * (lungime + 1) // 2


@pytest.mark.parametrize("mask_mod, lungime", [(_cauzala, 512), (_fereastra(100), 640), (_documente([200, 57, 300]), 557)])
def test_starile_blocurilor_vin_din_masca_densa(mask_mod, lungime):
    """Fiecare pereche de blocuri: sărită dacă masca densă n-are nicio pereche permisă în ea, plină
    dacă le are pe toate, parțială altfel (și la ultimul bloc, incomplet)."""
    bloc = flex10.create_block_mask(mask_mod, None, None, lungime, lungime, device="cpu")
    stari = flex10.stari_blocuri(bloc)
    densa = flex10.create_mask(mask_mod, 1, 1, lungime, lungime, device="cpu")[0, 0]
    marime = bloc.BLOCK_SIZE[0]
    for i in range(stari.shape[0]):
        for j in range(stari.shape[1]):
            felie = densa[i * marime:(i + 1) * marime, j * marime:(j + 1) * marime]
            if not felie.any():
                assert stari[i, j] == 0, (i, j)
            elif felie.all() and stari[i, j] != 1:
                assert stari[i, j] == 2, (i, j)
            else:
                assert stari[i, j] in (1, 2) and (stari[i, j] == 1 or felie.all()), (i, j)
    if lungime % marime == 0:
        # (cu un ultim bloc incomplet, torch 2.13 cântărește blocurile după aria lor, 2.14 le numără)
        sarite = int((stari == 0).sum())
        assert abs(100 * sarite / stari.numel() - bloc.sparsity()) < 1e-6
        assert abs(flex10.fractiunea_calculata(bloc) - (1 - sarite / stari.numel())) < 1e-9


def test_pe_procesor_fara_incercare(monkeypatch):
    monkeypatch.setattr(flex10, "incearca_pe_gpu_vechi", lambda *a, **k: pytest.fail("n-ar trebui încercat"))
    alegere = flex10.alege_dispozitivul_flex(_mediu(are_gpu=False))
    assert alegere.dispozitiv == "cpu" and "doar pasul înainte" in alegere.motiv and not alegere.pe_gpu


def test_gpu_nou_fara_incercare(monkeypatch):
    monkeypatch.delenv(flex10.VARIABILA_ESEC_SIMULAT, raising=False)
    monkeypatch.setattr(flex10, "incearca_pe_gpu_vechi", lambda *a, **k: pytest.fail("n-ar trebui încercat"))
    alegere = flex10.alege_dispozitivul_flex(_mediu(capabilitate=(9, 0), bf16_nativ=True, nume_gpu="NVIDIA H200"))
    assert alegere.dispozitiv == "cuda" and alegere.marimi.tip == torch.bfloat16 and "H200" in alegere.motiv


@pytest.mark.parametrize("esec, fragmente", [
    ("memorie", ["memorie partajată", "out of resource", "proces separat", "pe procesor"]),
    ("nan", ["NaN", "pe procesor"]),
])
def test_gpu_vechi_esecul_simulat_trece_pe_procesor(monkeypatch, esec, fragmente):
    """Încercarea rulează într-un proces separat; eșecul simulat nu atinge procesul testului și
    capitolul trece FlexAttention pe procesor, cu explicația în română."""
    monkeypatch.setenv(flex10.VARIABILA_ESEC_SIMULAT, esec)
    alegere = flex10.alege_dispozitivul_flex(_mediu(capabilitate=(9, 0)), limita_s=60)
    assert alegere.dispozitiv == "cpu" and alegere.esec and alegere.marimi.tip == torch.float32
    for fragment in fragmente:
        assert fragment in alegere.motiv, (fragment, alegere.motiv)
    assert "Traceback" not in alegere.motiv


def test_gpu_vechi_blocajul_e_oprit_de_limita(monkeypatch):
    monkeypatch.setenv(flex10.VARIABILA_ESEC_SIMULAT, "blocaj")
    start = time.perf_counter()
    alegere = flex10.alege_dispozitivul_flex(_mediu(), limita_s=3)
    assert time.perf_counter() - start < 30
    assert alegere.dispozitiv == "cpu" and "limita de timp" in alegere.motiv


def test_gpu_vechi_care_merge_ramane_pe_gpu(monkeypatch):
    monkeypatch.delenv(flex10.VARIABILA_ESEC_SIMULAT, raising=False)
    monkeypatch.setattr(flex10, "incearca_pe_gpu_vechi", lambda tip, limita_s: (True, "un apel compilat mic a mers"))
    alegere = flex10.alege_dispozitivul_flex(_mediu(e_simulat=True, gpu_simulat="T4"))
    assert alegere.dispozitiv == "cuda" and alegere.marimi.tip == torch.float16
    assert "GPU-ul real de sub simulare" in alegere.motiv


def _masuratoare(secunde):
    return Masuratoare(secunde, secunde * 0.98, secunde * 1.02, 10, "test", mediane_runde=(secunde,) * 5)


def test_atentia_naiva_care_nu_mai_incape(capsys):
    """O variantă care rămâne fără memorie la o lungime e notată „nu încape” acolo și nu mai e
    încercată la lungimile următoare; celelalte merg mai departe."""
    marimi = flex10.Marimi(1, 1, 8, (64,), (32, 64, 128), 16, torch.float32)
    apeluri = []

    def naiva(q, k, v):
        apeluri.append(q.shape[-2])
        if q.shape[-2] >= 64:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 1 GiB")
        return q

    randuri = flex10.masoara_atentia_naiva(naiva, marimi, "cpu", compilata=lambda q, k, v: q)
    assert [r.lungime for r in randuri] == [32, 64, 128]
    assert "naivă, eager" in randuri[0].timpi and "naivă, eager" in randuri[1].nu_incape
    assert "nu încăpea deja la 64" in randuri[2].nu_incape["naivă, eager"] and 128 not in apeluri
    assert all("SDPA" in r.timpi for r in randuri)
    flex10.arata_atentia_naiva(randuri, "cpu")
    iesire = capsys.readouterr().out
    assert "nu mai încape de la S = 64" in iesire and "nu încape" in iesire


def test_tabelul_naiv_pe_gpu_cu_memoria(capsys):
    randuri = []
    for lungime, naiv, sdpa in ((1024, 2**26, 2**20), (2048, 2**28, 2**21)):
        r = flex10.RandNaiv(lungime, octeti_scoruri=lungime * lungime * 2)
        r.timpi = {n: _masuratoare(t) for n, t in (("naivă, eager", 1e-3), ("naivă, compilată", 5e-4), ("SDPA", 1e-4))}
        r.memorie = {"naivă, eager": naiv, "naivă, compilată": naiv, "SDPA": sdpa}
        randuri.append(r)
    flex10.arata_atentia_naiva(randuri, "cuda")
    iesire = capsys.readouterr().out
    assert "vârful atenției naive crește de 4×" in iesire and "al lui SDPA de 2×" in iesire
    assert "toate variantele au încăput" in iesire


def test_recompilarile_numarate():
    @torch.compile(backend="eager")
    def f(x, functie):
        return functie(x)

    def unu(x):
        return x + 1

    def doi(x):
        return x * 2

    x = torch.ones(3)
    f(x, unu)
    cazuri = flex10.numara_recompilarile({"aceeași funcție, alte valori": lambda: f(x * 3, unu),
                                         "altă funcție": lambda: f(x, doi)}, pe_gpu=False)
    assert [c.recompilari for c in cazuri] == [0, 1]
    flex10.arata_recompilarile(cazuri)


def test_pasul_inapoi_pe_procesor_e_explicat():
    if torch.cuda.is_available():
        pytest.skip("pe GPU pasul înapoi există")
    alegere = flex10.AlegereFlex("cpu", flex10.Marimi(1, 2, 16, (128,), (128,), 64, torch.float32), "")
    rezultat = flex10.incearca_inapoi(alegere, _cauzala)
    assert not rezultat.merge and "NotImplementedError" in rezultat.explicatie and "GPU" in rezultat.explicatie


def test_modelul_cu_flex_fara_fereastra_e_modelul_cu_sdpa():
    """Cu fereastra cât toată secvența, `ReteaCuFlex` (aceleași greutăți) dă ieșirea lui
    `ReteaTransformer`; cu o fereastră mai mică, alta."""
    configuratie = ConfiguratieTransformer(vocabular=64, dim_model=16, nr_capete=2, nr_straturi=2, lungime=40, marime_lot=2)
    torch.manual_seed(0)
    model = ReteaTransformer(configuratie).eval()
    intrari = torch.randint(0, 64, (2, 40))
    with torch.no_grad(), flex10.fara_avertismentul_necompilat():
        for latime, egal in ((40, True), (8, False)):
            masca = flex10.create_block_mask(_fereastra(latime), None, None, 40, 40, device="cpu")
            cu_flex = flex10.ReteaCuFlex(configuratie, masca).eval()
            cu_flex.load_state_dict(model.state_dict())
            assert torch.allclose(cu_flex(intrari), model(intrari), atol=1e-5) is egal


def test_tolerantele():
    assert flex10.tolerante(torch.float32) == {}
    assert flex10.tolerante(torch.bfloat16)["atol"] > 1e-3
